.DEFAULT_GOAL := test

DYNOXIDE_VERSION ?= 1.2.1
DYNOXIDE_PKG     ?= @dynoxide/linux-x64
DYNOXIDE_DIR     ?= .tools/dynoxide
DYNOXIDE_BIN     := $(DYNOXIDE_DIR)/node_modules/$(DYNOXIDE_PKG)/dynoxide
export DYNOXIDE_BIN

# DuckDB for node runs the SQL that `locktable sql` writes in the tests.
DUCKDB_VERSION ?= 1.5.6-r.1
DUCKDB_DIR     ?= .tools/duckdb
DUCKDB_API     := $(DUCKDB_DIR)/node_modules/@duckdb/node-api/package.json
export DUCKDB_NODE_DIR := $(abspath $(DUCKDB_DIR))

# Fuzzing time per target: brief in `make test`, longer in `make reliability`.
TEST_FUZZTIME ?= 2s
FUZZTIME      ?= 30s

.PHONY: test build bench bench-tui lint dynoxide duckdb reliability fuzz emulator

# The unit and integration tests (the reliability suite bounded among
# them), then every fuzz target briefly; both run even if the first fails.
test: $(DYNOXIDE_BIN) $(DUCKDB_API)
	rc=0; \
	.ci/with-dynoxide go test -race ./... || rc=$$?; \
	reliability/fuzz $(TEST_FUZZTIME) || rc=$$?; \
	exit $$rc

# The reliability suite at full scale, with a table of figures; exits
# non-zero on any violation.
reliability: $(DYNOXIDE_BIN)
	.ci/with-dynoxide reliability/run $(FUZZTIME)

fuzz:
	reliability/fuzz $(FUZZTIME)

build:
	go build -o locktable .

bench: $(DYNOXIDE_BIN)
	.ci/with-dynoxide bash bench/run

bench-tui: $(DYNOXIDE_BIN)
	.ci/with-dynoxide bash bench/tui

lint:
	@out=$$(find . -path ./.tools -prune -o -path ./.git -prune -o -name "*.go" -print | xargs -r gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	go vet ./...

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

# A local emulator to try locktable by hand, in the foreground:
# make emulator [PORT=8000], then --endpoint-url http://localhost:8000.
PORT ?= 8000
emulator: $(DYNOXIDE_BIN)
	$(DYNOXIDE_BIN) --port $(PORT)
