/*
Copyright 2025 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package features

import (
	"k8s.io/component-helpers/nodedeclaredfeatures/features/dranodeallocatableresources"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/draoptionalnodeoperations"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/extendwebsocketstokubelet"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/inplacepodresize"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/restartallcontainers"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/usernamespaceshostnetwork"
	"k8s.io/component-helpers/nodedeclaredfeatures/features/volumebindmountoptions"
	"k8s.io/component-helpers/nodedeclaredfeatures/types"
)

// AllFeatures is the central registry for all declared features.
// New features are added to this list to be automatically included in both
// discovery and inference logic.
var AllFeatures = []types.Feature{
	restartallcontainers.Feature,
	inplacepodresize.PodLevelResourcesResizeFeature,
	extendwebsocketstokubelet.Feature,
	inplacepodresize.NonSidecarInitContainerResizeFeature,
	inplacepodresize.MemoryBackedVolumesResizeFeature,
	usernamespaceshostnetwork.Feature,
	dranodeallocatableresources.Feature,
	volumebindmountoptions.Feature,
	draoptionalnodeoperations.Feature,
}
