// Copyright 2019 The Kubernetes Authors.
// SPDX-License-Identifier: Apache-2.0

package types

// Pair is a key value pair.
type Pair struct {
	Key   string
	Value string
}
