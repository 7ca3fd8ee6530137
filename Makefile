# enginebench: `make run` runs the Insert Benchmark at small scale on SQLite and Pebble;
# `make test` runs the checks CI runs.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN     := bin/enginebench
LDFLAGS := -X main.version=$(VERSION)
RUNARGS ?=

.PHONY: all build run test bench deps clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/enginebench

# The main job: the Insert Benchmark at small scale on the embedded default engines.
run: build
	$(BIN) run --scale small --engines sqlite,pebble $(RUNARGS)

# What CI runs: formatting, vet, every test.
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# The harness's own cost (null engine) and the micro-benchmarks; see docs/performance.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 ./internal/...

# Debian packages the engines and the tests need. The default embedded engines (sqlite, pebble)
# need only Go and a C compiler; the server engines need their servers: postgres (postgresql),
# innodb (mariadb-server) and myrocks (mariadb-plugin-rocksdb); the report's browser test needs
# chromium.
DEB_PACKAGES := postgresql mariadb-server mariadb-plugin-rocksdb chromium
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PACKAGES)

clean:
	rm -rf bin
