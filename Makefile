# The two commands a newcomer needs: make run, make test.
SHELL := /bin/bash
# The disaster-recovery drill (test/drill/) runs in `make drill`, not here: a round takes half a
# minute of the 4-minute budget. The folders whose files run longest (Chromium, child processes:
# 10 to 120 s each) come first and the short API and unit files fill in after them, so the two
# lanes of `make test` end together instead of one waiting on a long file started last.
LONG_TEST_DIRS = test/browser test/resilience test/cluster test/deploy
TEST_FILES = $(shell find $(LONG_TEST_DIRS) -name '*.test.ts' | sort) \
  $(shell find test -name '*.test.ts' -not -path 'test/drill/*' $(LONG_TEST_DIRS:%=-not -path '%/*') | sort)

# Every target runs on the Node bin/select-node chooses (it says which in one line): the PATH's
# when it meets package.json's minimum, else the pinned one (.node-version) fetched into .node/.
# `make test USE_NODE=26.12.1` runs on that release instead (it must be in bin/node-releases).
NODE_BIN := $(shell USE_NODE=$(USE_NODE) bin/select-node)
ifeq ($(NODE_BIN),)
$(error no Node to run on (bin/select-node said why above))
endif
export PATH := $(NODE_BIN):$(PATH)
# node-gyp builds better-sqlite3 against the headers of the Node that runs it: the official
# binaries carry them in include/node; empty makes node-gyp fetch the matching ones itself.
NODE_PREFIX := $(patsubst %/bin,%,$(NODE_BIN))
export npm_config_nodedir := $(if $(wildcard $(NODE_PREFIX)/include/node/node_version.h),$(NODE_PREFIX))

# node_modules holds native code built for one Node ABI. The stamp names the ABI and holds the
# node that built it (bin/board-admin runs on that node); another ABI, or a newer lock file,
# runs npm ci again.
NODE_ABI := $(shell $(NODE_BIN)/node -p 'process.platform + "-" + process.arch + "-" + process.versions.modules')
DEPS := node_modules/.built-for-node-$(NODE_ABI)

.PHONY: run test typecheck deps
deps: $(DEPS)
$(DEPS): package-lock.json
	npm ci
	@node -p 'process.execPath' > $@

run: deps
	node --import tsx server.ts

# Two lanes (.ci/test-lane.ts), one per core: each runs test files one after another in one
# process, so the server's modules and Chromium load once per lane, not once per file. They take
# the files from one queue in TEST_FILES's order, the longest folders first, so both end together.
# `make test TEST_FILES="test/api/a.test.ts ..."` runs only those. The last lines list the 10
# slowest files, the CPU by folder (the lanes' child processes and Chromium included) and which
# test groups could not run on this machine (a missing tool skips them). `make test
# TEST_TIMES=<file>` keeps each file's wall and CPU seconds there (bench/results.md reads them).
# The tests run with TMPDIR set to a folder of this run's own; whatever they leave in it is named
# at the end and fails the run (.ci/test-leftovers.ts), then the folder goes. It is open to every
# user like /tmp (mode 1777): some tests run board-admin and the server as another user.
test: deps
	@status=0; scratch=$$(mktemp -d "$${TMPDIR:-/tmp}/board-test-run-XXXXXX"); queue=$$(mktemp -d "$${TMPDIR:-/tmp}/board-test-queue-XXXXXX"); \
	trap 'rm -rf "$$scratch" "$$queue"' EXIT; chmod 1777 "$$scratch"; printf '%s\n' $(TEST_FILES) > "$$queue/files"; \
	TMPDIR=$$scratch TEST_QUEUE=$$queue node --import tsx --test --test-concurrency=2 --test-reporter=spec .ci/test-lane-1.ts .ci/test-lane-2.ts || status=$$?; \
	node --import tsx .ci/lane-summary.ts "$$queue" || status=1; \
	[ -z "$(TEST_TIMES)" ] || cp "$$queue/times" "$(TEST_TIMES)"; \
	chromium=$$(.ci/chromium-path) || echo "make test: BROWSER TESTS SKIPPED: Chromium not found at $$chromium (apt-get install chromium-headless-shell, or set CHROMIUM_PATH)"; \
	chromium=$$(.ci/chromium-path desktop) || echo "make test: PUSH NOTIFICATION TEST SKIPPED: Chromium's full browser not found at $$chromium (apt-get install chromium)"; \
	command -v systemd-analyze >/dev/null || echo "make test: systemd unit check skipped: systemd-analyze not found (apt-get install systemd)"; \
	{ command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null || echo "make test: NGINX CACHE TESTS SKIPPED: nginx not found (apt-get install nginx)"; \
	command -v caddy >/dev/null || echo "make test: Caddyfile check skipped: caddy not found (apt-get install caddy)"; \
	node --import tsx .ci/test-leftovers.ts "$$scratch" || status=1; \
	exit $$status

# The tests CI also runs on the newest LTS (.ci/run): pure code, the API on a real server, the cluster, the deploy files,
# each file in a process of its own as node --test runs them, so CI also sees each file pass without the lanes of make test.
CORE_TEST_FILES = $(shell find test/unit test/api test/cluster test/deploy -name '*.test.ts' | sort)
.PHONY: test-core
test-core: deps
	node --import tsx --test --test-concurrency=2 --test-reporter=spec $(CORE_TEST_FILES)

# The server, tests and tools (tsconfig.json), then the front end from its JSDoc (web/tsconfig.json) and
# its service worker (web/tsconfig.sw.json: a worker's globals, not a page's).
typecheck: deps
	npx tsc --noEmit -p .
	npx tsc -p web
	npx tsc -p web/tsconfig.sw.json

# Biome (biome.json): `make lint` checks formatting and the lint rules without changing a file
# (CI runs it), then the import layers of lib/ (.dependency-cruiser.mjs, docs/ARCHITECTURE.md), then the OpenAPI document; `make format` rewrites the files into the formatter's shape.
.PHONY: lint format openapi-lint
lint: deps
	npx biome ci .
	npx depcruise --config .dependency-cruiser.mjs lib bin server.ts
	$(MAKE) --no-print-directory openapi-lint

# /api/openapi.json as the board builds it, linted by Redocly with its recommended rules
# (redocly.yaml names each rule turned off and why). No telemetry: CI reaches only npm.
openapi-lint: deps
	@doc=$$(mktemp -d)/openapi.json; trap 'rm -rf "$${doc%/*}"' EXIT; \
	node --import tsx .ci/openapi-document.ts > "$$doc" && \
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint --config redocly.yaml "$$doc"

format: deps
	npx biome format --write .

# The front end's modules made from the server's facts (web/static/pages.js, limits.js, web/api-types.d.ts).
.PHONY: front-end-files
front-end-files: deps
	node --import tsx lib/front-end-files.ts

# docs/API.md's endpoint reference, written from the OpenAPI document (lib/api/api-reference.ts).
.PHONY: api-docs
api-docs: deps
	node --import tsx lib/api-docs.ts

# The dependency checks of CI: npm audit of the runtime dependencies fails on a high or critical
# advisory (README "Known advisories" lists the accepted ones); npm outdated only reports.
.PHONY: audit outdated
audit: deps
	node --import tsx .ci/audit.ts

outdated: deps
	@npm outdated || true

# The disaster-recovery drill (test/drill/, docs/OPERATIONS.md "Disaster recovery") five times over: sshd as the
# replica, Litestream and the media sync, a SIGKILL, a restore; it prints the recovery point's
# median and worst over the kills. CI runs it after make test. Needs openssh-server and rsync; Litestream
# comes from bin/fetch-litestream (LITESTREAM=<path> for another binary).
.PHONY: drill
drill: deps
	@{ [ -x /usr/sbin/sshd ] && command -v rsync >/dev/null; } || { echo "make drill: sshd or rsync not found (apt-get install openssh-server rsync)"; exit 1; }
	LITESTREAM=$$(bin/fetch-litestream) DRILL_KILLS=5 node --import tsx --test --test-reporter=spec test/drill/replica-drill.test.ts

# Benchmarks (not part of make test): seeds boards of 10k, 100k and 1M entries, writes bench/results.md;
# then search, the share pages and creates with the search index at 1M (bench/search-results.md).
# Needs wrk (the Debian package; installed with apt-get when missing).
# The recovery time at 1M entries (docs/OPERATIONS.md "Disaster recovery"): seed, replicate, delete, restore, start.
# A flood of 10,000 inbound activities from one instance while a reader reads: the reader's p99 against
# its quiet p99, ceiling 2× (FLOOD_COUNT, FLOOD_SECONDS bound it); the figures go in bench/results.md by hand.
.PHONY: bench-federation-inbound
bench-federation-inbound: deps
	node --import tsx bench/federation-inbound.ts

.PHONY: bench-restore
bench-restore: deps
	LITESTREAM=$$(bin/fetch-litestream) node --import tsx bench/restore.ts

.PHONY: bench bench-search bench-search-attack bench-10m
bench: deps
	node --import tsx bench/run.ts
	node --import tsx bench/search.ts

bench-search: deps
	node --import tsx bench/search.ts

# Not in CI: costly searches against honest feed reads and ordinary searches at 1M entries (issue 28; BENCH_ATTACK_SIZE, BENCH_ATTACK_WORKERS,
# BENCH_ATTACK_SECONDS, BENCH_BEFORE=<checkout> for another version's server), writes its section of bench/search-results.md.
bench-search-attack: deps
	node --import tsx bench/search-attack.ts

# Not in CI: 1M and 10M entries (about 10 GB of disk; seeding 10M with the search index takes well over ten minutes), writes bench/results-10m.md.
# BENCH_10M_SEED_ONLY=1 only seeds, BENCH_10M_REUSE=1 measures the boards seeded before (bench/ten-million.ts).
bench-10m: deps
	node --max-old-space-size=16384 --import tsx bench/ten-million.ts

# Not in CI: logged-out reads through deploy/nginx.conf's cache against the board alone, and the board's CPU
# under that load (issue 33; BENCH_ROUNDS, BENCH_ROUND_SECONDS, BENCH_SIZE). Needs nginx and wrk; prints a table for bench/results.md.
.PHONY: bench-nginx-cache
bench-nginx-cache: deps
	node --import tsx bench/nginx-cache.ts

# Load time and memory of the IP-to-ASN tables (BOARD_ASN_DB, default the bundled data set).
.PHONY: asn-measure
asn-measure: deps
	node --expose-gc --import tsx bench/asn-load.ts

# The server processes' memory by board size and BOARD_WORKERS, the table of docs/SCALING.md "Memory"
# (BENCH_MEMORY_SIZES=30,100000: the boards, in entries). Prints a Markdown table; a few minutes.
.PHONY: bench-memory
bench-memory: deps
	node --import tsx bench/memory.ts

# Screenshots of the real pages (feed, thread, profile, statistics, settings, moderation queue; 1280 and 390 px wide) with
# German sample content, saved under docs/screenshots/. Needs Chromium (.ci/chromium-path: CHROMIUM_PATH, else Debian's).
.PHONY: screenshots
screenshots: deps
	node --import tsx test/browser/screenshots.ts

# The resilience tests at full length (make test runs their short versions): 20 SIGKILLs under
# write load, 30,000 fuzz cases, 1000 idle connections and production timeouts, 20 s of votes,
# backups under load, a minute of scripted attack (with the honest client's latency printed). SOAK_SEED=<n> repeats a run's random choices. Ends with a summary; fails on a
# failed test, a 500 or a lost write.
.PHONY: soak
soak: deps
	@summary=$$(mktemp); \
	SOAK=1 SOAK_SUMMARY=$$summary node --import tsx --test --test-concurrency=1 --test-reporter=spec $(sort $(wildcard test/resilience/*.test.ts)); status=$$?; \
	node --import tsx test/resilience/summary.ts $$summary $$status || status=1; \
	rm -f $$summary; exit $$status
