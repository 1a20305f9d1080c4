// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package instrumentation

// Library represents the instrumentation library.
//
// Deprecated: use [Scope] instead.
type Library = Scope
