# enginebench: `make run` runs the Insert Benchmark at small scale on SQLite and Pebble;
# `make test` runs the checks CI runs.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN     := bin/enginebench
LDFLAGS := -X main.version=$(VERSION)
RUNARGS ?=

.PHONY: all build engines run test bench deps clean

# Engines behind a build tag (a cgo binding to a C library) are built in when pkg-config finds
# their library; `make deps` installs the libraries. TAGS can be given to choose.
TAG_LIBS := lmdb:lmdb rocksdb:rocksdb wiredtiger:wiredtiger
TAGS     ?= $(foreach t,$(TAG_LIBS),$(if $(shell pkg-config --exists $(word 2,$(subst :, ,$(t))) 2>/dev/null && echo y),$(word 1,$(subst :, ,$(t)))))
LEFT_OUT := $(filter-out $(TAGS),$(foreach t,$(TAG_LIBS),$(word 1,$(subst :, ,$(t)))))
GOTAGS   := -tags "$(TAGS)"

all: build

build: engines
	$(GO) build $(GOTAGS) -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/enginebench

# Says which tagged engines this build has, and which it leaves out and why.
engines:
	@echo "engines built in: sqlite pebble bbolt postgres innodb myrocks null $(TAGS)"
	@for e in $(LEFT_OUT); do echo "left out: $$e (its library is not installed: make deps installs it)"; done

# The main job: the Insert Benchmark at small scale on the embedded default engines.
run: build
	$(BIN) run --scale small --engines sqlite,pebble $(RUNARGS)

# What CI runs: formatting, vet, every test.
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet $(GOTAGS) ./...
	$(GO) test $(GOTAGS) -count=1 ./...
	$(if $(strip $(TAGS)),$(GO) test -count=1 ./internal/engine/kv/lmdb/ ./internal/engine/kv/rocksdb/ ./internal/engine/kv/wiredtiger/)

# The harness's own cost (null engine) and the micro-benchmarks; then the client CPU per
# statement of enginebench's path beside a bare driver loop on the managed servers
# (BenchmarkClientCPU), CLIENTCPU_OPS statements or requests per sub-benchmark. See
# docs/performance.md.
CLIENTCPU_OPS ?= 2000
bench:
	$(GO) test $(GOTAGS) -run '^$$' -bench . -skip ClientCPU -benchmem -count 1 ./internal/...
	$(GO) test $(GOTAGS) -run '^$$' -bench ClientCPU -benchtime $(CLIENTCPU_OPS)x -count 1 \
		./internal/workload/insertbench/ ./internal/workload/linkbench/

# Debian packages the engines and the tests need. The default embedded engines (sqlite, pebble)
# need only Go and a C compiler; the server engines need their servers: postgres (postgresql),
# innodb (mariadb-server) and myrocks (mariadb-plugin-rocksdb); lmdb, rocksdb and wiredtiger their
# libraries (liblmdb-dev, librocksdb-dev, libwiredtiger-dev, found with pkg-config); the report's
# browser test needs chromium.
DEB_PACKAGES := postgresql mariadb-server mariadb-plugin-rocksdb liblmdb-dev librocksdb-dev libwiredtiger-dev pkg-config chromium
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PACKAGES)

clean:
	rm -rf bin
