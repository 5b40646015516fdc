# orgsync container image: a static binary on distroless/static (CA
# certificates, /etc/passwd with a non-root user, no shell).
#   docker build -t orgsync .
# (the build has no .git: pass --build-arg VERSION=$(git describe --tags
# --always) --build-arg COMMIT=$(git rev-parse --short=12 HEAD) for
# `orgsync version` to name them)
#   docker run --rm -v $PWD/orgsync.yaml:/etc/orgsync/orgsync.yaml:ro orgsync plan
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
      -o /out/orgsync ./cmd/orgsync

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/orgsync /usr/local/bin/orgsync
USER nonroot:nonroot
ENV ORGSYNC_CONFIG=/etc/orgsync/orgsync.yaml
EXPOSE 9090
ENTRYPOINT ["/usr/local/bin/orgsync"]
CMD ["plan"]
