# qvs build, test and benchmark targets. `make test` is what CI runs (.ci/run).
GO      ?= go
BENCH   ?= .
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: build test bench fuzz lint reproduce data clean

build:
	$(GO) build -ldflags "-X github.com/qvs-dev/qvs/cmd.Version=$(VERSION)" -o qvs .

# Tests read third-party data from ../shared/data (or $$QVS_DATA_DIR); `make data` fetches it.
test:
	$(GO) test -count=1 -timeout 20m ./...

# Every fuzz target for FUZZTIME each (the seed corpora also run in `make test`).
FUZZTIME ?= 5s
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchtime 3x ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Download and verify the third-party data (scripts/data.sha256) into
# ../shared/data or $$QVS_DATA_DIR; QVS_DATA_MIRROR=DIR|URL fetches from a mirror.
data:
	scripts/fetch-data.sh

reproduce: build
	scripts/reproduce.sh

clean:
	rm -f qvs
