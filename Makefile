.DEFAULT_GOAL := test

DYNOXIDE_VERSION ?= 1.2.1
DYNOXIDE_PKG     ?= @dynoxide/linux-x64
DYNOXIDE_DIR     ?= .tools/dynoxide
DYNOXIDE_BIN     := $(DYNOXIDE_DIR)/node_modules/$(DYNOXIDE_PKG)/dynoxide
export DYNOXIDE_BIN

# GoReleaser, pinned; installed into .tools/ on first use (a few minutes:
# it is a large module). v2.15.0 is the newest that builds with Go 1.26.
GORELEASER_VERSION ?= v2.15.0
GORELEASER         := .tools/goreleaser-$(GORELEASER_VERSION)/goreleaser

# DuckDB for node runs the SQL that `locktable sql` writes in the tests.
DUCKDB_VERSION ?= 1.5.6-r.1
DUCKDB_DIR     ?= .tools/duckdb
DUCKDB_API     := $(DUCKDB_DIR)/node_modules/@duckdb/node-api/package.json
export DUCKDB_NODE_DIR := $(abspath $(DUCKDB_DIR))

# A Trino SQL parser checks that Athena (engine 3, Trino) would read the
# query `locktable sql --dialect athena` writes; nothing here runs Athena.
TRINO_PARSER_VERSION ?= 4.5.1
TRINO_PARSER_DIR     ?= .tools/dt-sql-parser-$(TRINO_PARSER_VERSION)
TRINO_PARSER_PKG     := $(TRINO_PARSER_DIR)/node_modules/dt-sql-parser/package.json
export TRINO_PARSER_NODE_DIR := $(abspath $(TRINO_PARSER_DIR))

# The Node libraries whose own writes the preset tests check (OneTable,
# TypeDORM, ElectroDB); each in a directory of its own, pinned with its SDK.
AWS_SDK_V3_VERSION ?= 3.1169.0
AWS_UTIL_DYNAMODB_VERSION ?= 3.996.9
ONETABLE_VERSION   ?= 2.7.7
ONETABLE_DIR       ?= .tools/onetable-$(ONETABLE_VERSION)
ONETABLE_PKG       := $(ONETABLE_DIR)/node_modules/dynamodb-onetable/package.json
TYPEDORM_VERSION   ?= 1.15.4
TYPEDORM_DIR       ?= .tools/typedorm-$(TYPEDORM_VERSION)
TYPEDORM_PKG       := $(TYPEDORM_DIR)/node_modules/@typedorm/core/package.json
ELECTRODB_VERSION  ?= 3.9.3
ELECTRODB_DIR      ?= .tools/electrodb-$(ELECTRODB_VERSION)
ELECTRODB_PKG      := $(ELECTRODB_DIR)/node_modules/electrodb/package.json
export ONETABLE_NODE_DIR := $(abspath $(ONETABLE_DIR))
export TYPEDORM_NODE_DIR := $(abspath $(TYPEDORM_DIR))
export ELECTRODB_NODE_DIR := $(abspath $(ELECTRODB_DIR))

# Fuzzing time per target in `make fuzz` and `make reliability`, the only
# targets that explore; `make test` replays the seeds and what was found.
FUZZTIME      ?= 30s

# The linter, pinned; go run builds it once into Go's build cache.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: deps test build bench bench-suite bench-tui bench-sweep bench-paths bench-watch lint dynoxide duckdb trino-parser onetable typedorm electrodb reliability fuzz emulator release-check release-snapshot goreleaser screens

# How many test binaries, and tests within one, run at once. The suite
# waits on tmux, dynoxide and the processes it starts far more than on
# the CPU, so more than go test's default (the number of cores) of each.
TEST_P        ?= 4
TEST_PARALLEL ?= 8
# Tested without the race detector, beside the rest: model starts no
# goroutine and takes no lock (its TestModelIsSequential holds it so), so
# -race finds nothing there, and it made the oracle and spill tests 142 s.
RACE_FREE := github.com/locktable/locktable/model
# More go test flags, e.g. -json (bench/suite) or -run.
GO_TEST_FLAGS ?=

# The unit and integration tests (the reliability suite bounded among
# them); every fuzz target runs as a test of its seeds and of the inputs
# committed under testdata/fuzz/ (the findings), never exploring: what a
# run finds is then the same on every run. Both halves run even if one fails.
test: $(DYNOXIDE_BIN) $(DUCKDB_API) $(TRINO_PARSER_PKG) $(ONETABLE_PKG) $(TYPEDORM_PKG) $(ELECTRODB_PKG)
	@rc=0; out=$$(mktemp); \
	go test $(GO_TEST_FLAGS) -parallel $(TEST_PARALLEL) $(RACE_FREE) >"$$out" 2>&1 & plain=$$!; \
	.ci/with-dynoxide go test $(GO_TEST_FLAGS) -race -p $(TEST_P) -parallel $(TEST_PARALLEL) $$(go list ./... | grep -vxF '$(RACE_FREE)') || rc=$$?; \
	wait $$plain || rc=$$?; cat "$$out"; rm -f "$$out"; \
	exit $$rc

# The reliability suite at full scale, with a table of figures; exits
# non-zero on any violation.
reliability: $(DYNOXIDE_BIN)
	.ci/with-dynoxide reliability/run $(FUZZTIME)

fuzz:
	reliability/fuzz $(FUZZTIME)

build:
	go build -o locktable .

# Redraws the chart of the packages and their imports in docs/development.md.
deps:
	go run ./tools/depgraph -file docs/development.md

# What CI checks of the release: go.mod and go.sum tidy, .goreleaser.yaml
# valid, and a snapshot build for this machine (completions and man pages
# generated, the binary's version set) that runs; on Linux, the Lambda
# build too, which outside Lambda is locktable under another name.
release-check: $(GORELEASER)
	go mod tidy -diff
	$(GORELEASER) check
	$(GORELEASER) build --snapshot --clean --single-target
	dist/locktable_$$(go env GOOS)_$$(go env GOARCH)*/locktable version
	if [ "$$(go env GOOS)" = linux ]; then env -u AWS_LAMBDA_RUNTIME_API dist/bootstrap_linux_$$(go env GOARCH)*/bootstrap version; fi

# Every archive, package and the Homebrew cask into dist/, published
# nowhere: what a release would upload.
release-snapshot: $(GORELEASER)
	$(GORELEASER) release --snapshot --clean

goreleaser: $(GORELEASER)

$(GORELEASER):
	GOBIN=$(CURDIR)/$(dir $@) go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	test -x $@

# check's speed (against a bare parallel scan) and peak memory, each figure
# with its target and PASS/FAIL; exits non-zero when a target is missed.
# Sizes are overridable for a quick run (see bench/run), e.g.
# make bench BENCH_CLEAN_ACCOUNTS=20000 BENCH_SMALL_ACCOUNTS=2000 BENCH_ACCOUNTS=5000 BENCH_ROUNDS=3
bench: $(DYNOXIDE_BIN)
	.ci/with-dynoxide bash bench/run

# How long make test takes from a fresh clone of HEAD, as CI runs it.
bench-suite:
	bash bench/suite

bench-tui: $(DYNOXIDE_BIN)
	.ci/with-dynoxide bash bench/tui

# G's sweep of every account against a bare parallel scan, and its peak
# heap at two table sizes (bench/sweep); BENCH_ACCOUNTS, BENCH_ROUNDS.
bench-sweep: $(DYNOXIDE_BIN)
	.ci/with-dynoxide bash bench/sweep

# The cost (items read, RCU, time) of each way to check one table: check,
# a sharded check, check --export (and --confirm), and the SQL in DuckDB.
bench-paths: $(DYNOXIDE_BIN) $(DUCKDB_API)
	.ci/with-dynoxide bash bench/paths

# What watch costs: read units per stream record and records judged per
# second for each kind of write, and --max-rcu held through a burst
# (cli/TestMeasureWatchCost prints them; docs/performance.md has them).
bench-watch: $(DYNOXIDE_BIN)
	LOCKTABLE_TEST_MEASURE_WATCH=1 .ci/with-dynoxide go test ./cli -run '^TestMeasureWatchCost$$' -v -count=1 -timeout 30m

# gofmt, go vet and staticcheck (pinned above); any finding fails it.
lint:
	@out=$$(find . -path ./.tools -prune -o -path ./.git -prune -o -name "*.go" -print | xargs -r gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	go vet ./...
	go run $(STATICCHECK) ./...

dynoxide: $(DYNOXIDE_BIN)

$(DYNOXIDE_BIN):
	npm install --no-audit --no-fund --prefix $(DYNOXIDE_DIR) $(DYNOXIDE_PKG)@$(DYNOXIDE_VERSION)
	test -x $@

duckdb: $(DUCKDB_API)

# With its native binding for this platform: loading it fails if npm left
# that optional package out.
$(DUCKDB_API):
	npm install --no-audit --no-fund --prefix $(DUCKDB_DIR) @duckdb/node-api@$(DUCKDB_VERSION)
	node -e 'require("$(DUCKDB_NODE_DIR)/node_modules/@duckdb/node-api")'

trino-parser: $(TRINO_PARSER_PKG)

$(TRINO_PARSER_PKG):
	npm install --no-audit --no-fund --prefix $(TRINO_PARSER_DIR) dt-sql-parser@$(TRINO_PARSER_VERSION)
	test -f $@

onetable: $(ONETABLE_PKG)

$(ONETABLE_PKG):
	npm install --no-audit --no-fund --prefix $(ONETABLE_DIR) dynamodb-onetable@$(ONETABLE_VERSION) @aws-sdk/client-dynamodb@$(AWS_SDK_V3_VERSION) @aws-sdk/util-dynamodb@$(AWS_UTIL_DYNAMODB_VERSION)
	node -e 'require("$(ONETABLE_NODE_DIR)/node_modules/dynamodb-onetable")'

typedorm: $(TYPEDORM_PKG)

# TypeDORM's document client requires both SDKs; the fixtures use v3.
$(TYPEDORM_PKG):
	npm install --no-audit --no-fund --prefix $(TYPEDORM_DIR) @typedorm/core@$(TYPEDORM_VERSION) @typedorm/common@$(TYPEDORM_VERSION) @typedorm/document-client@$(TYPEDORM_VERSION) reflect-metadata@0.1.14 @aws-sdk/client-dynamodb@$(AWS_SDK_V3_VERSION) @aws-sdk/lib-dynamodb@$(AWS_SDK_V3_VERSION) aws-sdk@2.1693.0
	node -e 'require("$(TYPEDORM_NODE_DIR)/node_modules/reflect-metadata"); require("$(TYPEDORM_NODE_DIR)/node_modules/@typedorm/core")'

electrodb: $(ELECTRODB_PKG)

# ElectroDB takes a v3 DocumentClient (lib-dynamodb) over the v3 client.
$(ELECTRODB_PKG):
	npm install --no-audit --no-fund --prefix $(ELECTRODB_DIR) electrodb@$(ELECTRODB_VERSION) @aws-sdk/client-dynamodb@$(AWS_SDK_V3_VERSION) @aws-sdk/lib-dynamodb@$(AWS_SDK_V3_VERSION)
	node -e 'require("$(ELECTRODB_NODE_DIR)/node_modules/electrodb"); require("$(ELECTRODB_NODE_DIR)/node_modules/@aws-sdk/lib-dynamodb")'

# A local emulator to try locktable by hand, in the foreground:
# make emulator [PORT=8000], then --endpoint-url http://localhost:8000.
PORT ?= 8000
emulator: $(DYNOXIDE_BIN)
	$(DYNOXIDE_BIN) --port $(PORT)

# The pictures of the README and docs/, from the real binary on the demo (tmux, freeze).
screens:
	bash docs/screens.sh
