// Strict decoding of the plugin args the framework hands over into validated GangArgs, TopologyArgs.

package config

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// DecodeGangArgs turns the args the framework hands a plugin into defaulted,
// validated GangArgs. obj is nil (no pluginConfig), a *runtime.Unknown (args of
// an out-of-tree plugin) or a *GangArgs (tests). pluginName prefixes error paths.
func DecodeGangArgs(obj runtime.Object, pluginName string) (*GangArgs, error) {
	args, err := decodeArgs[GangArgs](obj, pluginName)
	if err != nil {
		return nil, err
	}
	SetDefaultsGangArgs(args)
	if err := ValidateGangArgs(field.NewPath("pluginConfig", pluginName, "args"), args); err != nil {
		return nil, err
	}
	return args, nil
}

// DecodeTopologyArgs turns the args the framework hands a plugin into
// defaulted, validated TopologyArgs, like DecodeGangArgs.
func DecodeTopologyArgs(obj runtime.Object, pluginName string) (*TopologyArgs, error) {
	args, err := decodeArgs[TopologyArgs](obj, pluginName)
	if err != nil {
		return nil, err
	}
	SetDefaultsTopologyArgs(args)
	if err := ValidateTopologyArgs(field.NewPath("pluginConfig", pluginName, "args"), args); err != nil {
		return nil, err
	}
	return args, nil
}

// decodeArgs reads args of type T from nil, a *T or a *runtime.Unknown,
// rejecting unknown fields.
func decodeArgs[T any, P interface {
	*T
	runtime.Object
}](obj runtime.Object, pluginName string) (P, error) {
	args := P(new(T))
	switch o := obj.(type) {
	case nil:
	case P:
		*args = *o.DeepCopyObject().(P)
	case *runtime.Unknown:
		if err := decodeStrict(o, args); err != nil {
			return nil, fmt.Errorf("decoding args of plugin %s: %w", pluginName, err)
		}
	default:
		return nil, fmt.Errorf("args of plugin %s: want %T, got %T", pluginName, args, obj)
	}
	return args, nil
}

func decodeStrict(u *runtime.Unknown, into any) error {
	if len(u.Raw) == 0 {
		return nil
	}
	raw := u.Raw
	if u.ContentType == runtime.ContentTypeYAML {
		var err error
		if raw, err = yaml.YAMLToJSONStrict(raw); err != nil {
			return err
		}
	}
	strict, err := json.UnmarshalStrict(raw, into)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return fmt.Errorf("%v", strict[0])
	}
	return nil
}
