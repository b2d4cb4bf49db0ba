# qvs build, test and benchmark targets. `make test` is what CI runs (.ci/run).
GO      ?= go
BENCH   ?= .
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# The OpenBLAS/LAPACKE backend (internal/linalg) when its Debian packages
# (libopenblas-dev, liblapacke-dev) are installed; pure Go otherwise.
# Override with `make build TAGS=` (pure Go) or TAGS=openblas.
HAS_OPENBLAS := $(shell test -f /usr/include/lapacke.h && (pkg-config --exists openblas || test -f /usr/include/x86_64-linux-gnu/cblas.h || test -f /usr/include/cblas.h) && echo yes)
TAGS    ?= $(if $(HAS_OPENBLAS),openblas,)

.PHONY: build test test-openblas bench fuzz lint reproduce data clean

build:
	$(GO) build -tags '$(TAGS)' -ldflags "-X github.com/qvs-dev/qvs/cmd.Version=$(VERSION)" -o qvs .

# Tests read third-party data from ../shared/data (or $$QVS_DATA_DIR); `make data` fetches it.
# Tests skipped for missing data are summed up in one line on stderr after
# go test's output (scripts/skipped-data.sh); the exit status is go test's.
test:
	@echo "$(GO) test -count=1 -timeout 20m ./..."; log=$$(mktemp); \
	QVS_SKIP_LOG=$$log $(GO) test -count=1 -timeout 20m ./...; rc=$$?; \
	scripts/skipped-data.sh $$log >&2; rm -f $$log; exit $$rc

# Every fuzz target for FUZZTIME each (the seed corpora also run in `make test`).
FUZZTIME ?= 5s
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh

# The packages whose code depends on the linear-algebra backend, built with
# OpenBLAS (CI runs this besides `make test`), and the exact kNN graph's
# tiles (linalg.SgemmNT).
test-openblas:
	$(GO) test -count=1 -tags openblas ./internal/linalg/ ./internal/vendi/ ./cmd/
	$(GO) test -count=1 -tags openblas -run 'DenseKNN|ApproxDenseKNN' ./internal/knn/

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchtime 3x ./...

# lint: gofmt, go vet, and the files behind build tags and other
# systems' files compile too.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags replay ./internal/surrogate/
	GOOS=darwin $(GO) build ./...
	GOOS=windows $(GO) build ./...

# Download and verify the third-party data (scripts/data.sha256) into
# ../shared/data or $$QVS_DATA_DIR; QVS_DATA_MIRROR=DIR|URL fetches from a mirror.
data:
	scripts/fetch-data.sh

reproduce: build
	scripts/reproduce.sh

clean:
	rm -f qvs
