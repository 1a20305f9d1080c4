# syntax=docker/dockerfile:1
# muster-scheduler image: a static binary on distroless, running as nonroot.
# Build from the repository root (dependencies come from vendor/):
#   docker build -t muster-scheduler:latest .
# Without Docker, `make images` builds the same image as an OCI archive (the
# tested way; see the README).

# Base images are pinned by digest (the tag stays for readers): a rebuild
# gets the same bases until someone moves the pin on purpose. To move it:
#   crane digest golang:1.26; crane digest gcr.io/distroless/static:nonroot
FROM golang:1.26@sha256:3aff6657219a4d9c14e27fb1d8976c49c29fddb70ba835014f477e1c70636647 AS builder
WORKDIR /src
# Never download another toolchain or module: everything is vendored.
ENV GOTOOLCHAIN=local GOFLAGS=-mod=vendor GOPROXY=off
COPY go.mod go.sum ./
COPY vendor/ vendor/
COPY cmd/ cmd/
COPY pkg/ pkg/
# Set by BuildKit for multi-platform builds; empty means the builder's platform.
ARG TARGETOS
ARG TARGETARCH
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -mod=vendor -trimpath -buildvcs=false -ldflags='-s -w -buildid=' \
      -o /out/muster-scheduler ./cmd/muster-scheduler

FROM gcr.io/distroless/static:nonroot@sha256:e2e927ec666bae08560abb3c55d0659eceabb657f56b6782ab500a9fc7f555e3
COPY --from=builder /out/muster-scheduler /muster-scheduler
USER 65532:65532
ENTRYPOINT ["/muster-scheduler"]
