# enginebench: `make run` runs the Insert Benchmark at small scale on SQLite and Pebble;
# `make test` runs the checks CI runs; `make release` builds one self-contained binary with every
# engine.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN     := bin/enginebench
LDFLAGS := -X main.version=$(VERSION)
RUNARGS ?=

.PHONY: all build engines run test bench release deps clean

# Engines behind a build tag (a cgo binding to a C library) are built in when pkg-config finds
# their library, which the binary then links as a shared library; `make deps` installs the
# libraries. TAGS can be given to choose.
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

# What CI runs: formatting, vet, staticcheck (a tool of go.mod: go tool staticcheck), every
# test. vet and staticcheck check the build without the tags and the build with them.
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet $(GOTAGS) ./...
	$(GO) tool staticcheck ./...
	$(GO) tool staticcheck $(GOTAGS) ./...
	$(GO) test $(GOTAGS) -count=1 -timeout 30m ./...
	$(if $(strip $(TAGS)),$(GO) test -count=1 ./internal/engine/kv/lmdb/ ./internal/engine/kv/rocksdb/ ./internal/engine/kv/wiredtiger/)

# The harness's own cost (null engine) and the micro-benchmarks, among them each embedded
# engine's BenchmarkAdapterFloor (its adapter beside a bare loop of its own API, with the
# tagged engines when their libraries are installed); then the client CPU per
# statement of enginebench's path beside a bare driver loop on the managed servers
# (BenchmarkClientCPU), CLIENTCPU_OPS statements or requests per sub-benchmark. See
# docs/performance.md.
CLIENTCPU_OPS ?= 2000
bench:
	$(GO) test $(GOTAGS) -run '^$$' -bench . -skip ClientCPU -benchmem -count 1 ./internal/...
	$(GO) test $(GOTAGS) -run '^$$' -bench ClientCPU -benchtime $(CLIENTCPU_OPS)x -count 1 \
		./internal/workload/insertbench/ ./internal/workload/linkbench/

# The release binary: every engine built in, and the C libraries of lmdb, rocksdb and wiredtiger
# linked statically with what they use (compression libraries, the C++ runtime), so that it runs
# where none of them is installed; only glibc stays shared. The link flags (-extldflags, which
# come last on the external linker's command line) do it: -L$(STATIC_DIR) makes every -l of the
# engines' cgo flags (pkg-config's, grocksdb's) find a static archive, as that directory holds
# links to the archives and no shared library, and the archives follow again in a group, as a
# static archive must come after what uses it. WiredTiger's snappy and zlib compressors are
# linked in too, their entry points exported for WiredTiger to find in the binary
# (internal/engine/kv/wiredtiger/compressors.go); the copies in STATIC_DIR make the entry point
# name the two archives share (wiredtiger_extension_init) local, or it would be defined twice.
# TestReleaseBinary (cmd/enginebench/release_test.go) builds it with this target and runs it.
RELEASE_BIN    ?= bin/enginebench-release
RELEASE_TAGS   := lmdb rocksdb wiredtiger
STATIC_DIR     := bin/static-libs
STATIC_LIBS    := rocksdb lmdb wiredtiger snappy lz4 zstd bz2 z stdc++
WT_COMPRESSORS := snappy zlib
CC_FOR_GO      := $(shell $(GO) env CC)
RELEASE_EXTLDFLAGS := -L$(CURDIR)/$(STATIC_DIR) -static-libgcc \
	$(foreach c,$(WT_COMPRESSORS),-Wl,--undefined=$(c)_extension_init,--export-dynamic-symbol=$(c)_extension_init) \
	-Wl,--start-group $(addprefix -l,$(STATIC_LIBS) $(addprefix wiredtiger_,$(WT_COMPRESSORS))) -Wl,--end-group

release:
	@rm -rf $(STATIC_DIR) && mkdir -p $(STATIC_DIR)
	@for l in $(STATIC_LIBS); do a=$$($(CC_FOR_GO) -print-file-name=lib$$l.a); \
		[ -f "$$a" ] || { echo "lib$$l.a not found: make deps installs the static libraries"; exit 1; }; \
		ln -s "$$a" $(STATIC_DIR)/lib$$l.a; done
	@for c in $(WT_COMPRESSORS); do a=$$($(CC_FOR_GO) -print-file-name=libwiredtiger_$$c.a); \
		objcopy --localize-symbol=wiredtiger_extension_init "$$a" $(STATIC_DIR)/libwiredtiger_$$c.a || exit 1; done
	$(GO) build -tags "$(RELEASE_TAGS)" -ldflags "$(LDFLAGS) -extldflags '$(RELEASE_EXTLDFLAGS)'" \
		-o $(RELEASE_BIN) ./cmd/enginebench
	@echo "$(RELEASE_BIN): every engine built in; it needs these shared libraries:"; ldd $(RELEASE_BIN)

# Debian packages the engines and the tests need. The default embedded engines (sqlite, pebble)
# need only Go and a C compiler; the server engines need their servers: postgres (postgresql),
# innodb (mariadb-server) and myrocks (mariadb-plugin-rocksdb); lmdb, rocksdb and wiredtiger their
# libraries (liblmdb-dev, librocksdb-dev, libwiredtiger-dev, found with pkg-config; they hold the
# static archives make release links too, and librocksdb-dev brings those of its compression
# libraries), and make release the C++ runtime's static archive (g++ brings libstdc++.a); the
# report's browser test needs chromium; the tests of shards on other hosts need iproute2 (ip netns).
DEB_PACKAGES := postgresql mariadb-server mariadb-plugin-rocksdb libjemalloc2 liblmdb-dev librocksdb-dev libwiredtiger-dev g++ pkg-config chromium iproute2 linux-perf
# The ferretdb engine's server is built from FerretDB's Go module (scripts/build-ferretdb.sh);
# a second PostgreSQL version goes into /opt/postgresql-17 (scripts/install-postgres.sh), for
# versions side by side (configs/postgres-versions.yaml).
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PACKAGES) curl ca-certificates python3
	GO=$(GO) scripts/build-ferretdb.sh
	scripts/install-postgres.sh

clean:
	rm -rf bin
