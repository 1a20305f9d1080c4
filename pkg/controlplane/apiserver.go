// Starting kube-apiserver in-process on the embedded etcd: certificates, flags, feature gates, storage, readiness, teardown.

// startAPIServer is adapted from StartTestServer in
// k8s.io/kubernetes/cmd/kube-apiserver/app/testing/testserver.go,
// Copyright 2017 The Kubernetes Authors, licensed under the Apache License,
// Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0). That package is
// test-only (it imports testing and featuregatetesting), so the shipped
// commands that run a control plane (muster demo, simulate, chaos,
// muster-bench) carry this copy instead. Differences: the serving
// certificate is generated here, once per process, rather than cached in a
// fixture directory beside the source; the service-account signing key is
// generated per server rather than a constant; errors are returned rather
// than reported through the test; and the metric invariant check upstream's
// teardown runs (declarative validation mismatches) is left out.

package controlplane

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/pflag"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/server/flagz"
	serveroptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	zpagesfeatures "k8s.io/component-base/zpages/features"
	"k8s.io/klog/v2"
	klogtesting "k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// defaultAPIServerFlags are the flags every API server gets, as upstream's
// integration framework gives its test servers (DefaultTestServerFlags):
// no endpoint reconciler, which would keep failing to publish 127.0.0.1
// as the kubernetes Service's endpoint, and no ServiceAccount admission, as
// no service account controller runs. Streams per HTTP/2 connection are
// not limited to kube-apiserver's 1000: the in-process clients are not
// throttled (QPS 5000), the scheduler's event broadcaster writes each
// event from a goroutine of its own, and past the limit Go's HTTP/2 client
// dials one connection per request (TestConcurrentRequestsShareAConnection:
// 2500 watches took 7644); a burst of events late in a week of the default
// trace opened 20000 and stalled the process on its descriptor limit.
var defaultAPIServerFlags = []string{
	"--endpoint-reconciler-type=none",
	"--disable-admission-plugins=ServiceAccount",
	"--http2-max-streams-per-connection=1000000",
}

// serviceClusterIPRange is the API server's Service range; its first
// address is the kubernetes Service's, which the serving certificate names.
const serviceClusterIPRange = "10.0.0.0/16"

// apiServer is a running kube-apiserver.
type apiServer struct {
	// config is its loopback client's: every request is authorized.
	config *rest.Config
	// etcd is a client of its storage, and prefix its key prefix there
	// (revisions.go).
	etcd   *clientv3.Client
	prefix string
	// stop stops it, waits for it to exit and removes its files.
	stop func()
}

// startAPIServer starts a kube-apiserver on the etcd at etcdURL, under a
// key prefix of its own, with defaultAPIServerFlags and then flags. It
// serves TLS on a free loopback port, with a self-signed certificate;
// authentication and authorization are the kube-apiserver defaults plus
// client certificates and the front-proxy's request headers, as upstream's
// test server sets them up. Feature gates the flags change are changed on
// the process's gates too (the API server reads those in many places) and
// put back at tb's cleanup. The caller must call stop when it is done.
func startAPIServer(tb TB, etcdURL string, flags []string) (_ *apiServer, err error) {
	dir, err := os.MkdirTemp("", "muster-kube-apiserver")
	if err != nil {
		return nil, fmt.Errorf("creating the API server's directory: %w", err)
	}
	// The API server's contextual log goes to tb's log, as upstream's test
	// server sends it to the test's; the rest is klog's.
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), newTBLogger(tb)))
	var errCh chan error
	tearDown := func() {
		// Cancelling stops the API server, which shuts down its storage too.
		cancel()
		if errCh != nil {
			if err, ok := <-errCh; ok && err != nil {
				klog.Errorf("kube-apiserver did not shut down cleanly: %v", err)
			}
		}
		_ = os.RemoveAll(dir)
	}
	defer func() {
		if err != nil {
			tearDown()
		}
	}()

	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)

	// The API server's own copy of the process's feature gates, registered
	// with a registry of its own rather than the default one, so that the
	// flags set it and the emulation version is the process's.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	// Upstream's test server's effective version: the Kubernetes version
	// this module vendors, without the N-3 floor on emulation versions.
	effectiveVersion := compatibility.DefaultKubeEffectiveVersionForTest()
	effectiveVersion.SetEmulationVersion(featureGate.EmulationVersion())
	effectiveVersion.SetMinCompatibilityVersion(featureGate.MinCompatibilityVersion())
	componentGlobalsRegistry := basecompatibility.NewComponentGlobalsRegistry()
	if err := componentGlobalsRegistry.Register(basecompatibility.DefaultKubeComponent, effectiveVersion, featureGate); err != nil {
		return nil, err
	}

	s := options.NewServerRunOptions()
	if !effectiveVersion.BinaryVersion().EqualTo(effectiveVersion.EmulationVersion()) {
		// Allow new APIs, as features enabled explicitly may depend on
		// APIs that emulating an older version turns off.
		s.GenericServerRunOptions.RuntimeConfigEmulationForwardCompatible = true
	}
	s.Options.GenericServerRunOptions.ComponentGlobalsRegistry = componentGlobalsRegistry

	namedFlagSets := s.Flags()
	for _, f := range namedFlagSets.FlagSets {
		fs.AddFlagSet(f)
	}

	s.SecureServing.Listener, s.SecureServing.BindPort, err = listenOnFreeLoopbackPort()
	if err != nil {
		return nil, fmt.Errorf("creating the API server's listener: %w", err)
	}
	s.SecureServing.ServerCert.CertDirectory = dir

	reqHeaderFromFlags := s.Authentication.RequestHeader
	if err := setUpCertAuth(s, dir); err != nil {
		return nil, err
	}

	// The listener's address, although it is a loopback device.
	s.SecureServing.ExternalAddress = s.SecureServing.Listener.Addr().(*net.TCPAddr).IP

	s.ServiceClusterIPRanges = serviceClusterIPRange
	storage := storagebackend.NewDefaultConfig(path.Join(uuid.New().String(), "registry"), nil)
	storage.Transport.ServerList = []string{etcdURL}
	s.Etcd.StorageConfig = *storage

	if err := fs.Parse(append(append([]string{}, defaultAPIServerFlags...), flags...)); err != nil {
		return nil, fmt.Errorf("kube-apiserver flags: %w", err)
	}

	// The serving certificate, where the API server looks for it in its
	// certificate directory (it would generate one per server otherwise).
	if err := writeServingCert(s); err != nil {
		return nil, err
	}

	// No endpoint reconciliation with a loopback "external" address, unless
	// the flags ask for it.
	if !fs.Changed("advertise-address") && !fs.Changed("endpoint-reconciler-type") {
		s.EndpointReconcilerType = "none"
	}
	if utilfeature.DefaultFeatureGate.Enabled(zpagesfeatures.ComponentFlagz) {
		s.Flagz = flagz.NamedFlagSetsReader{FlagSets: namedFlagSets}
	}

	// setUpCertAuth replaced the RequestHeader options the flags were bound
	// to; the header names the flags give still count.
	if h := reqHeaderFromFlags.UsernameHeaders; len(h) > 0 {
		s.Authentication.RequestHeader.UsernameHeaders = h
	}
	if h := reqHeaderFromFlags.UIDHeaders; len(h) > 0 {
		s.Authentication.RequestHeader.UIDHeaders = h
	}
	if h := reqHeaderFromFlags.GroupHeaders; len(h) > 0 {
		s.Authentication.RequestHeader.GroupHeaders = h
	}
	if h := reqHeaderFromFlags.ExtraHeaderPrefixes; len(h) > 0 {
		s.Authentication.RequestHeader.ExtraHeaderPrefixes = h
	}

	if err := componentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	// Most of the API server reads the process's gates
	// (utilfeature.DefaultFeatureGate), not its registry's copy: what the
	// flags changed is changed there too, until tb's cleanup.
	if err := overrideProcessFeatureGates(tb, featureGate); err != nil {
		return nil, err
	}
	utilfeature.DefaultMutableFeatureGate.AddMetrics()

	if featureGate.Enabled(genericfeatures.UnknownVersionInteroperabilityProxy) {
		s.PeerCAFile = filepath.Join(dir, s.SecureServing.ServerCert.PairName+".crt")
	}

	saKeyFile, err := writeServiceAccountKey(dir)
	if err != nil {
		return nil, err
	}
	s.ServiceAccountSigningKeyFile = saKeyFile
	s.Authentication.ServiceAccounts.Issuers = []string{"https://foo.bar.example.com"}
	s.Authentication.ServiceAccounts.KeyFiles = []string{saKeyFile}

	completedOptions, err := s.Complete(ctx)
	if err != nil {
		return nil, fmt.Errorf("completing the kube-apiserver options: %w", err)
	}
	if errs := completedOptions.Validate(); len(errs) != 0 {
		return nil, fmt.Errorf("validating the kube-apiserver options: %w", utilerrors.NewAggregate(errs))
	}

	tb.Logf("runtime-config=%v", completedOptions.APIEnablement.RuntimeConfig)
	tb.Logf("Starting kube-apiserver on port %d...", s.SecureServing.BindPort)

	config, err := app.NewConfig(completedOptions)
	if err != nil {
		return nil, err
	}
	completed, err := config.Complete()
	if err != nil {
		return nil, err
	}
	server, err := app.CreateServerChain(completed)
	if err != nil {
		return nil, fmt.Errorf("creating the kube-apiserver server chain: %w", err)
	}

	errCh = make(chan error)
	go func() {
		defer close(errCh)
		prepared, err := server.PrepareRun()
		if err != nil {
			errCh <- err
		} else if err := prepared.Run(ctx); err != nil {
			errCh <- err
		}
	}()

	client, err := kubernetes.NewForConfig(server.GenericAPIServer.LoopbackClientConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the API server's client: %w", err)
	}

	tb.Logf("Waiting for /healthz to be ok...")
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, false, func(ctx context.Context) (bool, error) {
		select {
		case err := <-errCh:
			return false, err
		default:
		}
		status := 0
		client.CoreV1().RESTClient().Get().AbsPath("/healthz").Do(ctx).StatusCode(&status)
		return status == 200, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for /healthz to return ok: %w", err)
	}

	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, false, func(ctx context.Context) (bool, error) {
		select {
		case err := <-errCh:
			return false, err
		default:
		}
		if _, err := client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{}); err != nil {
			if !apierrors.IsNotFound(err) {
				tb.Logf("Unable to get default namespace: %v", err)
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the default namespace to be created: %w", err)
	}

	etcdClient, err := clientv3.New(clientv3.Config{Endpoints: storage.Transport.ServerList, DialTimeout: 20 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("creating the etcd client: %w", err)
	}

	cfg := rest.CopyConfig(server.GenericAPIServer.LoopbackClientConfig)
	cfg.QPS, cfg.Burst = 1000, 10000
	return &apiServer{
		config: cfg,
		etcd:   etcdClient,
		prefix: storage.Prefix,
		stop: func() {
			if err := etcdClient.Close(); err != nil {
				klog.Errorf("closing the API server's etcd client: %v", err)
			}
			tearDown()
		},
	}, nil
}

// newTBLogger is a klog logger writing to tb's log, at klog's verbosity.
func newTBLogger(tb TB) klog.Logger {
	config := klogtesting.NewConfig(
		klogtesting.VerbosityFlagName("v"),
		klogtesting.VModuleFlagName("vmodule"),
	)
	var klogFlags, loggerFlags flag.FlagSet
	klog.InitFlags(&klogFlags) // binds klog's own settings: their values are klog's current ones
	config.AddFlags(&loggerFlags)
	for _, name := range []string{"v", "vmodule"} {
		if err := loggerFlags.Set(name, klogFlags.Lookup(name).Value.String()); err != nil {
			klog.Errorf("copying klog's -%s to the API server's logger: %v", name, err)
		}
	}
	return klogtesting.NewLogger(tb, config)
}

// listenOnFreeLoopbackPort listens on a free port of 127.0.0.1.
func listenOnFreeLoopbackPort() (net.Listener, int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, 0, err
	}
	tcpAddr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		ln.Close()
		return nil, 0, fmt.Errorf("invalid listen address: %q", ln.Addr().String())
	}
	return ln, tcpAddr.Port, nil
}

// setUpCertAuth turns on client-certificate authentication and the
// front-proxy's request-header authentication, with a CA of each made
// here, and gives the API server a front-proxy client certificate (CN
// misty) for the aggregated API servers it calls.
func setUpCertAuth(s *options.ServerRunOptions, dir string) error {
	reqHeaders := serveroptions.NewDelegatingAuthenticationOptions()
	s.Authentication.RequestHeader = &reqHeaders.RequestHeader

	proxySigningCert, proxySigningKey, proxyCACertFile, err := writeCA(dir, "proxy-ca.crt", "front-proxy-ca")
	if err != nil {
		return err
	}
	s.Authentication.RequestHeader.ClientCAFile = proxyCACertFile
	// The API server's identity for request-header authentication, so that
	// aggregated API servers can tell who is calling.
	s.Authentication.RequestHeader.AllowedNames = []string{"ash", "misty", "brock"}

	signer, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).SetInt64(math.MaxInt64-1))
	if err != nil {
		return err
	}
	serial = new(big.Int).Add(serial, big.NewInt(1))
	certTmpl := x509.Certificate{
		Subject:               pkix.Name{CommonName: "misty"}, // one of AllowedNames
		SerialNumber:          serial,
		NotBefore:             proxySigningCert.NotBefore,
		NotAfter:              time.Now().Add(10_000 * time.Hour),
		KeyUsage:              x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	certDER, err := x509.CreateCertificate(rand.Reader, &certTmpl, proxySigningCert, signer.Public(), proxySigningKey)
	if err != nil {
		return err
	}
	certPath := filepath.Join(dir, "misty-crt.crt")
	if err := certutil.WriteCert(certPath, pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: certDER})); err != nil {
		return err
	}
	keyPath := filepath.Join(dir, "misty-crt.key")
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(signer)
	if err != nil {
		return err
	}
	if err := keyutil.WriteKey(keyPath, keyPEM); err != nil {
		return err
	}
	s.ProxyClientKeyFile, s.ProxyClientCertFile = keyPath, certPath

	_, _, clientCACertFile, err := writeCA(dir, "client-ca.crt", "client-ca")
	if err != nil {
		return err
	}
	s.Authentication.ClientCert.ClientCA = clientCACertFile
	return nil
}

// writeCA makes a self-signed CA named cn and writes its certificate to
// dir/file, returning the certificate, its key and the file's path.
func writeCA(dir, file, cn string) (*x509.Certificate, *rsa.PrivateKey, string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, "", err
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: cn}, key)
	if err != nil {
		return nil, nil, "", err
	}
	path := filepath.Join(dir, file)
	if err := os.WriteFile(path, encodeCertPEM(cert), 0o644); err != nil {
		return nil, nil, "", err
	}
	return cert, key, path, nil
}

func encodeCertPEM(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: cert.Raw})
}

// servingCerts are the self-signed serving certificates made so far, by
// the names they serve: every API server of the process serves the same
// names, so it is made once (two RSA keys take a while on a busy machine).
var servingCerts = struct {
	sync.Mutex
	byNames map[string][2][]byte // certificate and key, PEM
}{byNames: map[string][2][]byte{}}

// writeServingCert writes a self-signed serving certificate and its key
// where the API server looks first (its certificate directory, under its
// pair name), for the names it would generate one for: its advertised
// address, localhost (it binds every address), the kubernetes Service's
// address and names.
func writeServingCert(s *options.ServerRunOptions) error {
	host := s.SecureServing.ExternalAddress.String()
	if s.GenericServerRunOptions.AdvertiseAddress != nil && !s.GenericServerRunOptions.AdvertiseAddress.IsUnspecified() {
		host = s.GenericServerRunOptions.AdvertiseAddress.String()
	}
	primary, _, _ := strings.Cut(s.ServiceClusterIPRanges, ",")
	_, serviceNet, err := net.ParseCIDR(primary)
	if err != nil {
		return fmt.Errorf("service range %q: %w", primary, err)
	}
	serviceIP := serviceNet.IP.To4()
	if serviceIP == nil {
		return fmt.Errorf("service range %q: not IPv4", primary)
	}
	serviceIP = net.IPv4(serviceIP[0], serviceIP[1], serviceIP[2], serviceIP[3]+1)
	ips := []net.IP{serviceIP}
	dns := []string{"kubernetes.default.svc", "kubernetes.default", "kubernetes"}
	if s.SecureServing.BindAddress.IsUnspecified() {
		dns = append(dns, "localhost")
	} else {
		ips = append(ips, s.SecureServing.BindAddress)
	}
	names := fmt.Sprint(host, ips, dns)

	servingCerts.Lock()
	pair, ok := servingCerts.byNames[names]
	if !ok {
		cert, key, err := certutil.GenerateSelfSignedCertKey(host, ips, dns)
		if err != nil {
			servingCerts.Unlock()
			return fmt.Errorf("generating the serving certificate: %w", err)
		}
		pair = [2][]byte{cert, key}
		servingCerts.byNames[names] = pair
	}
	servingCerts.Unlock()

	sc := s.SecureServing.ServerCert
	if err := certutil.WriteCert(filepath.Join(sc.CertDirectory, sc.PairName+".crt"), pair[0]); err != nil {
		return err
	}
	return keyutil.WriteKey(filepath.Join(sc.CertDirectory, sc.PairName+".key"), pair[1])
}

// writeServiceAccountKey writes a new ECDSA key for signing and verifying
// service account tokens into dir and returns its path.
func writeServiceAccountKey(dir string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "service-account.key")
	return p, keyutil.WriteKey(p, keyPEM)
}

// processGatesMu serializes overrideProcessFeatureGates and the restores
// it schedules.
var processGatesMu sync.Mutex

// overrideProcessFeatureGates sets on the process's feature gates
// (utilfeature.DefaultMutableFeatureGate) the emulation version and the
// feature values in which gate, the API server's copy, differs from them,
// and puts the originals back at tb's cleanup: values set explicitly are
// restored, those that were defaults become defaults again.
func overrideProcessFeatureGates(tb TB, gate featuregate.MutableVersionedFeatureGate) error {
	processGatesMu.Lock()
	defer processGatesMu.Unlock()
	process := utilfeature.DefaultMutableFeatureGate

	if emu, minCompat := process.EmulationVersion(), process.MinCompatibilityVersion(); !gate.EmulationVersion().EqualTo(emu) || !gate.MinCompatibilityVersion().EqualTo(minCompat) {
		if err := process.SetEmulationVersionAndMinCompatibilityVersion(gate.EmulationVersion(), gate.MinCompatibilityVersion()); err != nil {
			return fmt.Errorf("setting the process's feature gate versions: %w", err)
		}
		tb.Cleanup(func() {
			processGatesMu.Lock()
			defer processGatesMu.Unlock()
			if err := process.SetEmulationVersionAndMinCompatibilityVersion(emu, minCompat); err != nil {
				klog.Errorf("restoring the process's feature gate versions: %v", err)
			}
		})
	}

	overrides := map[string]bool{}
	original := map[string]bool{}
	var unset []featuregate.Feature
	for f := range process.GetAll() {
		if v := gate.Enabled(f); v != process.Enabled(f) {
			overrides[string(f)] = v
			original[string(f)] = !v
			if !process.ExplicitlySet(f) {
				unset = append(unset, f)
			}
		}
	}
	if len(overrides) == 0 {
		return nil
	}
	if err := process.SetFromMap(overrides); err != nil {
		return fmt.Errorf("setting the process's feature gates %v: %w", overrides, err)
	}
	tb.Cleanup(func() {
		processGatesMu.Lock()
		defer processGatesMu.Unlock()
		var errs []error
		if err := process.SetFromMap(original); err != nil {
			errs = append(errs, err)
		}
		for _, f := range unset {
			if err := process.ResetFeatureValueToDefault(f); err != nil {
				errs = append(errs, err)
			}
		}
		if err := errors.Join(errs...); err != nil {
			klog.Errorf("restoring the process's feature gates %v: %v", original, err)
		}
	})
	return nil
}
