// The secure serving endpoint for /metrics and /health-check, with delegated authn and authz.

package main

import (
	"fmt"
	"net"
	"net/http"

	"github.com/spf13/pflag"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server"
	genericfilters "k8s.io/apiserver/pkg/server/filters"
	apiserveroptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	netutils "k8s.io/utils/net"
)

// healthPath is served to anyone: kubelet's probes carry no credentials.
const healthPath = "/health-check"

// defaultPlainAddress is where the plain HTTP endpoint listens unless
// --address says otherwise: this host only. Upstream's default (:8085)
// serves metrics and, when enabled, debugging snapshots and profiles to
// anyone who can reach the pod.
const defaultPlainAddress = "127.0.0.1:8085"

// servingOptions is the secure endpoint for /metrics, /health-check and,
// when enabled, /snapshotz and profiling: HTTPS with authentication and
// authorization delegated to the API server (TokenReview,
// SubjectAccessReview), the way kube-scheduler and kube-controller-manager
// serve theirs. It is off until --secure-port is set.
type servingOptions struct {
	secure *apiserveroptions.SecureServingOptionsWithLoopback
	authn  *apiserveroptions.DelegatingAuthenticationOptions
	authz  *apiserveroptions.DelegatingAuthorizationOptions
}

func newServingOptions() *servingOptions {
	secure := apiserveroptions.NewSecureServingOptions()
	secure.BindPort = 0
	secure.ServerCert.PairName = "muster-autoscaler"
	authn := apiserveroptions.NewDelegatingAuthenticationOptions()
	authn.RemoteKubeConfigFileOptional = true
	authz := apiserveroptions.NewDelegatingAuthorizationOptions()
	authz.RemoteKubeConfigFileOptional = true
	authz.AlwaysAllowPaths = []string{healthPath}
	return &servingOptions{secure: secure.WithLoopback(), authn: authn, authz: authz}
}

func (o *servingOptions) addFlags(fs *pflag.FlagSet) {
	o.secure.AddFlags(fs)
	o.authn.AddFlags(fs)
	o.authz.AddFlags(fs)
}

// enabled reports whether --secure-port asks for the secure endpoint.
func (o *servingOptions) enabled() bool { return o.secure.BindPort > 0 }

// start serves handler on the secure port behind authentication and
// authorization; it returns once the listener is up.
func (o *servingOptions) start(handler http.Handler, stop <-chan struct{}) error {
	if errs := append(append(o.secure.Validate(), o.authn.Validate()...), o.authz.Validate()...); len(errs) > 0 {
		return fmt.Errorf("secure serving: %v", errs)
	}
	if err := o.secure.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
		return fmt.Errorf("secure serving: self-signed certificate: %w", err)
	}
	var info *server.SecureServingInfo
	var loopback *rest.Config
	if err := o.secure.ApplyTo(&info, &loopback); err != nil {
		return fmt.Errorf("secure serving: %w", err)
	}
	var authn server.AuthenticationInfo
	if err := o.authn.ApplyTo(&authn, info, nil); err != nil {
		return fmt.Errorf("secure serving: authentication: %w", err)
	}
	var authz server.AuthorizationInfo
	if err := o.authz.ApplyTo(&authz); err != nil {
		return fmt.Errorf("secure serving: authorization: %w", err)
	}
	if authn.Authenticator == nil || authz.Authorizer == nil {
		return fmt.Errorf("secure serving: no API server to delegate authentication and authorization to (run in a cluster, or set --authentication-kubeconfig and --authorization-kubeconfig)")
	}
	resolver := &apirequest.RequestInfoFactory{}
	h := genericapifilters.WithAuthorization(handler, authz.Authorizer, scheme.Codecs)
	h = genericapifilters.WithAuthentication(h, authn.Authenticator, genericapifilters.Unauthorized(scheme.Codecs), nil, nil)
	h = genericapifilters.WithRequestInfo(h, resolver)
	h = genericapifilters.WithCacheControl(h)
	h = genericfilters.WithPanicRecovery(h, resolver)
	if _, _, err := info.Serve(h, 0, stop); err != nil {
		return fmt.Errorf("secure serving: %w", err)
	}
	klog.InfoS("Serving metrics and health securely", "address", info.Listener.Addr().String())
	return nil
}
