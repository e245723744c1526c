# Dynamo as a container: a static binary on a distroless base, run as a
# non-root user. Build with `docker build -t dynamo .`; compose.yaml runs it
# beside PostgreSQL.

# --- build -------------------------------------------------------------------
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so a code change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO_ENABLED=0: the embedded store is pure-Go SQLite, so the binary needs no
# C library and runs on an image without one.
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/dynamo ./cmd/dynamo \
 && mkdir -p /out/data

# --- run ---------------------------------------------------------------------
# distroless/static: CA certificates, tzdata and /etc/passwd, no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/dynamo /usr/local/bin/dynamo
# The embedded store's file lives in /data (a volume); with DATABASE_URL set
# (postgres://…) PostgreSQL is used instead and /data stays empty.
COPY --from=build --chown=nonroot:nonroot /out/data /data
VOLUME /data
WORKDIR /data
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/dynamo"]
# Without DATABASE_URL the embedded store is dynamo.db in the working
# directory, /data.
CMD ["serve", "--addr", "0.0.0.0:8080"]
