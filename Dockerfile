# toolproof in a container. Needs BuildKit (docker buildx, or DOCKER_BUILDKIT=1).
#
#   docker build -t toolproof .                  runtime: FROM scratch, only the static binary
#   docker build --target shell -t toolproof:shell .   the binary on debian:stable-slim, with a shell
#
# The `build` stage compiles a static musl binary from source with Cargo.toml's release profile.
# With --build-arg BINARY_FROM=context the images take a static binary that was built already,
# from dist/docker/<TARGETARCH>/toolproof in the build context, and skip the compiler image: the
# release workflow passes the musl binaries it ships, one per platform.

ARG RUST_VERSION=1.95
ARG DEBIAN_IMAGE=debian:stable-slim
ARG BINARY_FROM=source

FROM rust:${RUST_VERSION}-alpine AS build
WORKDIR /src
COPY . .
# The rust:alpine image brings gcc and musl-dev; on musl, Rust links statically by default.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p toolproof \
    && install -D -m 0755 target/release/toolproof /out/toolproof

FROM scratch AS binary-source
COPY --from=build /out/toolproof /toolproof

FROM scratch AS binary-context
ARG TARGETARCH
COPY dist/docker/${TARGETARCH}/toolproof /toolproof

# One of the two stages above, which hadolint cannot see through the variable.
# hadolint ignore=DL3006
FROM binary-${BINARY_FROM} AS binary

# For GitLab CI and Jenkins `image:` jobs, which run their scripts in a shell. No entrypoint, so
# the job's script runs as given. It stays root: a job that tests a stdio server usually installs
# the server's runtime first (apt-get install nodejs), and Jenkins sets its own user anyway.
FROM ${DEBIAN_IMAGE} AS shell
ARG VERSION=dev
LABEL org.opencontainers.image.title="toolproof" \
      org.opencontainers.image.description="Tests MCP servers in CI (with a shell, for CI image: jobs)" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=binary /toolproof /usr/local/bin/toolproof
CMD ["toolproof", "--help"]

# The default image: the binary alone, run as an unprivileged user. For `docker run` against HTTP
# servers, and for `COPY --from=ghcr.io/…/toolproof /usr/local/bin/toolproof /usr/local/bin/` into
# an image that has the stdio server's runtime.
FROM scratch AS runtime
ARG VERSION=dev
LABEL org.opencontainers.image.title="toolproof" \
      org.opencontainers.image.description="Tests MCP servers in CI" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=binary /toolproof /usr/local/bin/toolproof
USER 65532:65532
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/toolproof"]
CMD ["--help"]
