// Package config holds the typed arguments of Muster's scheduler plugins, with
// the same three parts as the in-tree plugins' args: types, defaults and
// validation. Args arrive through KubeSchedulerConfiguration pluginConfig and
// are decoded strictly, so a misspelt field fails start-up instead of being
// silently ignored.
package config
