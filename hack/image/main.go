// Command image builds Muster's container images without a Docker engine,
// with go-containerregistry, and checks them.
//
//	image build --name muster-scheduler --binary linux/amd64=bin/images/linux_amd64/muster-scheduler \
//	      --binary linux/arm64=... --base offline|<image reference> --out images/muster-scheduler.tar
//	image check --archive images/muster-scheduler.tar --entrypoint /muster-scheduler
//	image base-check --base <image reference> --platforms linux/amd64,linux/arm64 --timeout 20s
//
// base-check resolves a registry base's manifest (and, for an index, that
// it holds every platform) within the timeout, so that build-images.sh
// fails in seconds, before it compiles anything, when the base's registry
// cannot be reached; with --base offline it does nothing.
//
// An image is a base (a registry image pinned by digest, or "offline": a
// layer assembled here from the host's CA bundle and a passwd entry for
// the nonroot user) plus one layer with the binary, run as 65532:65532.
// Every file time and the config's dates are SOURCE_DATE_EPOCH (default 0)
// and layers are written in a fixed order, so the same binaries and base
// give the same digest. The output is an OCI image layout in a tar, with an
// index over the platforms.
//
// go-containerregistry rather than ko: ko builds Go binaries itself from a
// main module and pushes or loads them, while Muster has two modules (the
// autoscaler's is separate) with their own build flags; the library lets
// the Makefile build the binaries as it already does and assembles images
// and an OCI archive offline.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	nonroot = 65532
	// DefaultBase is distroless/static's nonroot variant, pinned.
	DefaultBase  = "gcr.io/distroless/static:nonroot@sha256:e2e927ec666bae08560abb3c55d0659eceabb657f56b6782ab500a9fc7f555e3"
	caBundlePath = "etc/ssl/certs/ca-certificates.crt"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: image build|check|base-check [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = build(os.Args[2:])
	case "check":
		err = check(os.Args[2:])
	case "base-check":
		err = baseCheck(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: want build, check or base-check", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

type binaries map[string]string // platform os/arch -> path

func (b binaries) String() string { return fmt.Sprint(map[string]string(b)) }
func (b binaries) Set(v string) error {
	plat, path, ok := strings.Cut(v, "=")
	if !ok || !strings.Contains(plat, "/") {
		return fmt.Errorf("--binary %q: want os/arch=path", v)
	}
	b[plat] = path
	return nil
}

type labels map[string]string

func (l labels) String() string { return fmt.Sprint(map[string]string(l)) }
func (l labels) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("--label %q: want key=value", v)
	}
	l[k] = val
	return nil
}

func sourceDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", s, err)
	}
	return time.Unix(n, 0).UTC(), nil
}

func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	bins := binaries{}
	lbls := labels{}
	imgName := fs.String("name", "", "image name (the binary is /<name>), e.g. muster-scheduler")
	base := fs.String("base", DefaultBase, `base image reference (pin it by digest), or "offline" for a base assembled from local files`)
	caBundle := fs.String("ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates for the offline base")
	tag := fs.String("tag", "latest", "tag recorded in the archive's index (org.opencontainers.image.ref.name)")
	out := fs.String("out", "", "output archive (a tar of an OCI image layout)")
	fs.Var(bins, "binary", "os/arch=path of the binary for that platform (repeat per platform)")
	fs.Var(lbls, "label", "key=value image label (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *imgName == "" || *out == "" || len(bins) == 0 {
		return errors.New("build needs --name, --out and at least one --binary")
	}
	date, err := sourceDate()
	if err != nil {
		return err
	}
	var offline v1.Layer
	if *base == "offline" {
		if offline, err = offlineBaseLayer(*caBundle, date); err != nil {
			return err
		}
	}
	plats := make([]string, 0, len(bins))
	for p := range bins {
		plats = append(plats, p)
	}
	sort.Strings(plats)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range plats {
		osName, arch, _ := strings.Cut(p, "/")
		plat := v1.Platform{OS: osName, Architecture: arch}
		var img v1.Image
		if offline != nil {
			img, err = mutate.AppendLayers(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON), offline)
		} else {
			img, err = remoteBase(*base, plat)
		}
		if err != nil {
			return fmt.Errorf("%s base for %s: %w", *imgName, p, err)
		}
		bin, err := binaryLayer(bins[p], *imgName, date)
		if err != nil {
			return err
		}
		if img, err = mutate.AppendLayers(img, bin); err != nil {
			return err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return err
		}
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture = osName, arch
		cf.Created = v1.Time{Time: date}
		cf.History = nil // a registry base's history carries its own dates; the layers say what is in it
		cf.Config.User = fmt.Sprintf("%d:%d", nonroot, nonroot)
		cf.Config.Entrypoint = []string{"/" + *imgName}
		cf.Config.Cmd = nil
		cf.Config.WorkingDir = "/"
		cf.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/" + caBundlePath}
		cf.Config.Labels = map[string]string{}
		for k, v := range lbls {
			cf.Config.Labels[k] = v
		}
		if img, err = mutate.ConfigFile(img, cf); err != nil {
			return err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &plat}})
	}
	digest, err := writeArchive(idx, *out, *imgName+":"+*tag, date)
	if err != nil {
		return err
	}
	fmt.Printf("%s %s %s (%s)\n", *out, *imgName, digest, strings.Join(plats, ", "))
	return nil
}

func remoteBase(ref string, plat v1.Platform) (v1.Image, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return nil, fmt.Errorf("--base %q: %w", ref, err)
	}
	if _, ok := r.(name.Digest); !ok {
		fmt.Fprintf(os.Stderr, "image: warning: base %s is not pinned by digest; the build is not reproducible\n", ref)
	}
	return remote.Image(r, remote.WithPlatform(plat), remote.WithContext(context.Background()))
}

// baseCheck resolves the base's manifest with a deadline, as build would
// before pulling it, so that an unreachable registry is found before the
// binaries are compiled rather than after. An index must list every
// platform asked for (a single-platform image is taken as build takes it).
func baseCheck(args []string) error {
	fs := flag.NewFlagSet("base-check", flag.ContinueOnError)
	base := fs.String("base", DefaultBase, `base image reference, as for build; "offline" needs no registry and passes`)
	platforms := fs.String("platforms", "", "comma-separated os/arch the base must serve")
	timeout := fs.Duration("timeout", 20*time.Second, "time allowed for reaching the registry and resolving the manifest")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *base == "offline" {
		return nil
	}
	r, err := name.ParseReference(*base)
	if err != nil {
		return fmt.Errorf("--base %q: %w", *base, err)
	}
	registry := r.Context().RegistryStr()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	desc, err := remote.Get(r, remote.WithContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("cannot reach %s for base image %s: no answer within %s: %w", registry, *base, *timeout, err)
		}
		var terr *transport.Error
		if errors.As(err, &terr) {
			// The registry answered: the reference, not the network, is wrong.
			return fmt.Errorf("%s did not serve base image %s: %w", registry, *base, err)
		}
		return fmt.Errorf("cannot reach %s for base image %s: %w", registry, *base, err)
	}
	var missing []string
	if desc.MediaType.IsIndex() {
		idx, err := desc.ImageIndex()
		if err != nil {
			return fmt.Errorf("base image %s: %w", *base, err)
		}
		im, err := idx.IndexManifest()
		if err != nil {
			return fmt.Errorf("base image %s: %w", *base, err)
		}
		served := map[string]bool{}
		for _, m := range im.Manifests {
			if m.Platform != nil {
				served[m.Platform.OS+"/"+m.Platform.Architecture] = true
			}
		}
		for _, p := range strings.Split(*platforms, ",") {
			if p != "" && !served[p] {
				missing = append(missing, p)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("base image %s has no image for %s", *base, strings.Join(missing, ", "))
	}
	if _, ok := r.(name.Digest); ok {
		fmt.Fprintf(os.Stderr, "image: base %s resolved\n", *base)
	} else {
		fmt.Fprintf(os.Stderr, "image: base %s resolved to %s\n", *base, desc.Digest)
	}
	return nil
}

// tarEntry is one file of a layer.
type tarEntry struct {
	name     string
	mode     int64
	uid, gid int
	dir      bool
	body     []byte
}

func layerOf(entries []tarEntry, date time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.gid, ModTime: date, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag, h.Name = tar.TypeDir, strings.TrimSuffix(e.name, "/")+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if !e.dir {
			if _, err := tw.Write(e.body); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer))
}

func binaryLayer(path, imgName string, date time.Time) (v1.Layer, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("binary for %s: %w", imgName, err)
	}
	return layerOf([]tarEntry{{name: imgName, mode: 0o755, body: body}}, date)
}

// offlineBaseLayer is what the binaries need of distroless/static: CA
// certificates for Azure's and the API server's TLS, the nonroot user, and
// a writable /tmp (the autoscaler's serving certificate goes to a mount
// there).
func offlineBaseLayer(caBundle string, date time.Time) (v1.Layer, error) {
	ca, err := os.ReadFile(caBundle)
	if err != nil {
		return nil, fmt.Errorf("--ca-bundle: %w (install Debian's ca-certificates, or pass another bundle)", err)
	}
	if !bytes.Contains(ca, []byte("BEGIN CERTIFICATE")) {
		return nil, fmt.Errorf("--ca-bundle %s holds no PEM certificate", caBundle)
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonroot, nonroot)
	group := fmt.Sprintf("root:x:0:\nnobody:x:65534:\nnonroot:x:%d:\n", nonroot)
	return layerOf([]tarEntry{
		{name: "etc", dir: true, mode: 0o755},
		{name: "etc/group", mode: 0o644, body: []byte(group)},
		{name: "etc/passwd", mode: 0o644, body: []byte(passwd)},
		{name: "etc/ssl", dir: true, mode: 0o755},
		{name: "etc/ssl/certs", dir: true, mode: 0o755},
		{name: caBundlePath, mode: 0o644, body: ca},
		{name: "home", dir: true, mode: 0o755},
		{name: "home/nonroot", dir: true, mode: 0o700, uid: nonroot, gid: nonroot},
		{name: "tmp", dir: true, mode: 0o1777},
	}, date)
}

// writeArchive writes idx as an OCI image layout and tars it, entries
// sorted and dated, so equal images give equal archives.
func writeArchive(idx v1.ImageIndex, out, ref string, date time.Time) (string, error) {
	dir, err := os.MkdirTemp("", "muster-image-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return "", err
	}
	d, err := idx.Digest()
	if err != nil {
		return "", err
	}
	var files []string
	if err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	}); err != nil {
		return "", err
	}
	sort.Strings(files)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(out)
	if err != nil {
		return "", err
	}
	tw := tar.NewWriter(f)
	for _, name := range files {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Close()
			return "", err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: date, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			f.Close()
			return "", err
		}
		if _, err := tw.Write(body); err != nil {
			f.Close()
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return "", err
	}
	return d.String(), f.Close()
}

// check opens an archive and verifies every platform's image: OCI media
// types, the nonroot user, the entrypoint, a CA bundle; the host platform's
// binary is extracted from its layer and run with --help.
func check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	archive := fs.String("archive", "", "archive written by build")
	entrypoint := fs.String("entrypoint", "", "expected entrypoint, e.g. /muster-scheduler")
	platforms := fs.String("platforms", "", "comma-separated os/arch the index must hold")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *archive == "" || *entrypoint == "" {
		return errors.New("check needs --archive and --entrypoint")
	}
	dir, err := os.MkdirTemp("", "muster-image-check-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := untar(*archive, dir); err != nil {
		return err
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		return fmt.Errorf("%s is not an OCI image layout: %w", *archive, err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		return err
	}
	topManifest, err := top.IndexManifest()
	if err != nil {
		return err
	}
	if len(topManifest.Manifests) != 1 {
		return fmt.Errorf("%s: %d entries in index.json, want 1", *archive, len(topManifest.Manifests))
	}
	idx, err := top.ImageIndex(topManifest.Manifests[0].Digest)
	if err != nil {
		return err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	found := map[string]bool{}
	host := runtime.GOOS + "/" + runtime.GOARCH
	ranHelp := false
	for _, desc := range im.Manifests {
		if desc.Platform == nil {
			return fmt.Errorf("%s: manifest %s has no platform", *archive, desc.Digest)
		}
		plat := desc.Platform.OS + "/" + desc.Platform.Architecture
		found[plat] = true
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return err
		}
		if want := fmt.Sprintf("%d:%d", nonroot, nonroot); cf.Config.User != want {
			return fmt.Errorf("%s %s: user %q, want %q", *archive, plat, cf.Config.User, want)
		}
		if len(cf.Config.Entrypoint) != 1 || cf.Config.Entrypoint[0] != *entrypoint {
			return fmt.Errorf("%s %s: entrypoint %q, want [%s]", *archive, plat, cf.Config.Entrypoint, *entrypoint)
		}
		if cf.OS+"/"+cf.Architecture != plat {
			return fmt.Errorf("%s: config says %s/%s, index says %s", *archive, cf.OS, cf.Architecture, plat)
		}
		files, err := flatten(img, strings.TrimPrefix(*entrypoint, "/"), caBundlePath)
		if err != nil {
			return fmt.Errorf("%s %s: %w", *archive, plat, err)
		}
		if !bytes.Contains(files[caBundlePath], []byte("BEGIN CERTIFICATE")) {
			return fmt.Errorf("%s %s: no CA certificates at /%s", *archive, plat, caBundlePath)
		}
		bin := files[strings.TrimPrefix(*entrypoint, "/")]
		if len(bin) == 0 {
			return fmt.Errorf("%s %s: no %s in the image", *archive, plat, *entrypoint)
		}
		d, _ := img.Digest()
		sum := sha256.Sum256(bin)
		fmt.Printf("%s %s: image %s, user %s, entrypoint %s, binary sha256:%s\n", *archive, plat, d, cf.Config.User, *entrypoint, hex.EncodeToString(sum[:8]))
		if plat == host {
			path := filepath.Join(dir, "entrypoint")
			if err := os.WriteFile(path, bin, 0o755); err != nil {
				return err
			}
			// cobra exits 0 after --help; cluster-autoscaler's pflag set
			// exits 2 with "pflag: help requested". Either is a binary
			// that runs and knows its flags.
			out, err := exec.Command(path, "--help").CombinedOutput()
			text := string(out)
			if err != nil && !strings.Contains(text, "pflag: help requested") {
				return fmt.Errorf("%s %s: %s --help: %v\n%s", *archive, plat, *entrypoint, err, head(text))
			}
			if !strings.Contains(text, "Usage") && !strings.Contains(text, "usage") {
				return fmt.Errorf("%s %s: %s --help printed no usage:\n%s", *archive, plat, *entrypoint, head(text))
			}
			fmt.Printf("%s %s: %s --help ran (%d lines of usage)\n", *archive, plat, *entrypoint, strings.Count(text, "\n"))
			ranHelp = true
		}
	}
	for _, want := range strings.Split(*platforms, ",") {
		if want != "" && !found[want] {
			return fmt.Errorf("%s: no image for %s", *archive, want)
		}
	}
	if found[host] && !ranHelp {
		return fmt.Errorf("%s: the %s binary was not run", *archive, host)
	}
	return nil
}

func head(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// flatten returns the named files of the image's flattened file system.
func flatten(img v1.Image, names ...string) (map[string][]byte, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		n := strings.TrimPrefix(h.Name, "./")
		n = strings.TrimPrefix(n, "/")
		if !want[n] {
			continue
		}
		if h.Typeflag == tar.TypeSymlink {
			// distroless links the bundle; follow one level within the image.
			want[strings.TrimPrefix(filepath.Join(filepath.Dir(n), h.Linkname), "/")] = true
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out[n] = b
	}
}

func untar(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, dir+string(os.PathSeparator)) {
			return fmt.Errorf("%s: entry %q leaves the archive", archive, h.Name)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
	}
}
