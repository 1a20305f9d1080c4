# syntax=docker/dockerfile:1
# muster-scheduler image: a static binary on distroless, running as nonroot.
# Build from the repository root (dependencies come from vendor/):
#   docker build -t muster-scheduler:latest .

FROM golang:1.26 AS builder
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
    go build -mod=vendor -trimpath -ldflags='-s -w' \
      -o /out/muster-scheduler ./cmd/muster-scheduler

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/muster-scheduler /muster-scheduler
USER 65532:65532
ENTRYPOINT ["/muster-scheduler"]
