# vibes-analyze: two commands for a newcomer.
#   make demo   installs what is missing, builds in release, installs the tool in ~/.local
#               (make install; PREFIX=... for elsewhere), imports the bundled sample library
#               into a fresh SQLite file, analyses a bundled audio clip, clusters the library into
#               vibes, recommends, builds a playlist and writes the HTML mood report
#   make test   checks the formatting (.swift-format), runs the whole test suite, and runs the
#               k-means kernel tests again built for this machine's vector width
SHELL := /bin/bash
APT_PACKAGES := libopenblas-dev liblapacke-dev libsqlite3-dev pkg-config \
	libavformat-dev libavcodec-dev libswresample-dev libavutil-dev libebur128-dev libaubio-dev \
	libcurl4-openssl-dev libssl-dev zlib1g-dev
# What only the tests need: chromium runs the HTML report's and the web app's browser tests (and
# scripts/render-report.sh); python3-venv makes the virtual environment spotipy is installed in.
TEST_APT_PACKAGES := chromium python3-venv
# spotipy, the Python client of the Spotify Web API, is run against `serve`'s Spotify-compatible
# endpoints (Tests/VibesServerTests/SpotipyTests.swift), from a virtual environment of its own.
SPOTIPY_VENV := $(CURDIR)/.build/venv-spotipy
DEMO_DIR := out/demo
DEMO_DB := $(DEMO_DIR)/library.sqlite
BIN := .build/release/vibes-analyze

# The release build targets this machine's CPU when it has everything of x86-64-v3 (AVX2, FMA,
# BMI2, ...; see scripts/host-cpu-flags.sh): the k-means kernel's 8-lane SIMD then compiles to
# 256-bit instructions. `make build HOST_CPU=0` makes the portable baseline build that SwiftPM makes
# by default (and that apps embedding the libraries get).
HOST_CPU ?= 1
ifeq ($(HOST_CPU),1)
CPU_FLAGS := $(shell scripts/host-cpu-flags.sh)
endif

.PHONY: demo test deps test-deps build clean lint format install install-programs uninstall test-kernels-host-cpu

# Where `make install` puts the programs, the manual pages and the shell completions.
PREFIX ?= $(HOME)/.local
MAN_OUT := .build/man
# The folder `make install-programs` copies the programs from.
BUILD_DIR ?= .build/release
# The music tagger's model, SwiftPM's resource bundle of AudioAnalysis: vibes-analyze-audio looks
# for it beside itself (or beside the file a symbolic link to it leads to).
RESOURCES := vibes-analyze_AudioAnalysis.resources

deps:
	@if ! dpkg -s $(APT_PACKAGES) >/dev/null 2>&1; then \
		echo "Installing $(APT_PACKAGES) (needs root or sudo)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends $(APT_PACKAGES); \
	fi

test-deps: deps
	@if ! dpkg -s $(TEST_APT_PACKAGES) >/dev/null 2>&1; then \
		echo "Installing $(TEST_APT_PACKAGES) for the browser tests (needs root or sudo)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y --no-install-recommends $(TEST_APT_PACKAGES); \
	fi
	@if ! "$(SPOTIPY_VENV)/bin/python3" -c "import spotipy" 2>/dev/null; then \
		echo "Installing spotipy into $(SPOTIPY_VENV) for the spotipy test"; \
		( python3 -m venv "$(SPOTIPY_VENV)" && "$(SPOTIPY_VENV)/bin/pip" install --quiet spotipy ) \
			|| echo "Could not install spotipy (no PyPI?): the spotipy test will say it skipped"; \
	fi

# The programs link the Swift runtime and Foundation statically (libcurl4-openssl-dev is what
# that link needs): the dynamic loader then resolves a few libraries instead of a dozen, which took
# about 7 of the 30 ms every command spends starting. `make build STATIC=0` links them dynamically.
# (Linux only: Apple platforms have no static Swift runtime.)
ifeq ($(shell uname -s),Linux)
STATIC ?= 1
endif
ifeq ($(STATIC),1)
LINK_FLAGS := --static-swift-stdlib
endif

build: deps
	swift build -c release --product vibes-analyze $(CPU_FLAGS) $(LINK_FLAGS)
	swift build -c release --product vibes-analyze-audio $(CPU_FLAGS) $(LINK_FLAGS)

# Installs vibes-analyze and vibes-analyze-audio with the tagger's model into $(PREFIX)/bin
# (install-programs), a manual page per command (swift-argument-parser's generate-manual, run on
# the built tool) into $(PREFIX)/share/man/man1, and bash, zsh and fish completions.
install: build
	swift build -c release --product generate-manual $(CPU_FLAGS) $(LINK_FLAGS)
	@rm -rf $(MAN_OUT) && mkdir -p $(MAN_OUT)
	.build/release/generate-manual "$(CURDIR)/$(BIN)" --multi-page --authors "vibes-analyze contributors" \
		--output-directory $(MAN_OUT)
	python3 scripts/man-sections.py "$(CURDIR)/$(BIN)" $(MAN_OUT)
	install -d "$(PREFIX)/bin" "$(PREFIX)/share/man/man1" "$(PREFIX)/share/bash-completion/completions" \
		"$(PREFIX)/share/zsh/site-functions" "$(PREFIX)/share/fish/vendor_completions.d"
	$(MAKE) --no-print-directory install-programs BUILD_DIR=.build/release
	install -m 0644 $(MAN_OUT)/*.1 "$(PREFIX)/share/man/man1/"
	$(BIN) --generate-completion-script bash > "$(PREFIX)/share/bash-completion/completions/vibes-analyze"
	$(BIN) --generate-completion-script zsh > "$(PREFIX)/share/zsh/site-functions/_vibes-analyze"
	$(BIN) --generate-completion-script fish > "$(PREFIX)/share/fish/vendor_completions.d/vibes-analyze.fish"
	@echo
	@echo "Installed vibes-analyze in $(PREFIX)/bin (manual: man vibes-analyze)."
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) \
		echo "$(PREFIX)/bin is not on your PATH; add it with:"; \
		echo "  echo 'export PATH=\"$(PREFIX)/bin:\$$PATH\"' >> ~/.bashrc && export PATH=\"$(PREFIX)/bin:\$$PATH\"";; esac

# The programs and the tagger's model alone, from $(BUILD_DIR), without building: what `install`
# does after its build, and what Tests/VibesAnalyzeTests/InstallCommandTests.swift runs on the
# debug build.
install-programs:
	install -d "$(PREFIX)/bin"
	install -m 0755 $(BUILD_DIR)/vibes-analyze $(BUILD_DIR)/vibes-analyze-audio "$(PREFIX)/bin/"
	rm -rf "$(PREFIX)/bin/$(RESOURCES)"
	cp -R $(BUILD_DIR)/$(RESOURCES) "$(PREFIX)/bin/"
	chmod -R u+rwX,go+rX,go-w "$(PREFIX)/bin/$(RESOURCES)"

uninstall:
	rm -rf "$(PREFIX)/bin/$(RESOURCES)"
	rm -f "$(PREFIX)/bin/vibes-analyze" "$(PREFIX)/bin/vibes-analyze-audio" "$(PREFIX)"/share/man/man1/vibes-analyze*.1 \
		"$(PREFIX)/share/bash-completion/completions/vibes-analyze" "$(PREFIX)/share/zsh/site-functions/_vibes-analyze" \
		"$(PREFIX)/share/fish/vendor_completions.d/vibes-analyze.fish"

demo: install
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	$(BIN) import --db $(DEMO_DB) samples/tidytuesday-sample.csv
	$(BIN) library --db $(DEMO_DB)
	$(BIN) analyze --db $(DEMO_DB) Sources/VibesTestSupport/Fixtures/audio/clip.flac
	$(BIN) features status --db $(DEMO_DB)
	$(BIN) cluster --db $(DEMO_DB) --k 6 --seed 42
	$(BIN) recommend --db $(DEMO_DB) --mood chill -n 10
	$(BIN) playlist build --db $(DEMO_DB) --vibe 1 --duration 45m --order arc --export m3u --out $(DEMO_DIR)/vibe-1.m3u --save
	$(BIN) report --db $(DEMO_DB) --format html --out $(DEMO_DIR)/report.html
	@echo
	@echo "Library:  $(DEMO_DB)"
	@echo "Playlist: $(DEMO_DIR)/vibe-1.m3u"
	@echo "Report:   $(DEMO_DIR)/report.html (open it in a browser; scripts/render-report.sh makes PNGs)"

# The formatting check uses the swift-format bundled with the toolchain and the rules in .swift-format.
lint:
	swift format lint --strict --recursive --parallel Sources Tests Package.swift Benchmarks

format:
	swift format --in-place --recursive --parallel Sources Tests Package.swift Benchmarks

# At most 8 tests at once: Swift Testing otherwise starts every test together, and a loopback
# fake's next step then queues behind all of them on the 2 threads of a 2-core machine (a sign-in
# test once waited over 3 minutes that way). The suite takes as long either way: it is CPU-bound.
# Each stage prints how long it took (CONTRIBUTING.md lists the usual times).
test: test-deps
	@start=$$(date +%s); $(MAKE) --no-print-directory lint && echo "make test: lint took $$(( $$(date +%s) - start )) s"
	@start=$$(date +%s); VIBES_SPOTIPY_PYTHON="$(SPOTIPY_VENV)/bin/python3" SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=8 swift test \
		&& echo "make test: swift test (build and suite) took $$(( $$(date +%s) - start )) s"
	@start=$$(date +%s); $(MAKE) --no-print-directory fuzz && echo "make test: fuzz took $$(( $$(date +%s) - start )) s"
	@start=$$(date +%s); $(MAKE) --no-print-directory test-kernels-host-cpu \
		&& echo "make test: host-CPU kernel tests took $$(( $$(date +%s) - start )) s"

# The k-means kernel tests again, built for this machine's CPU (scripts/host-cpu-flags.sh) into a
# scratch path of their own, so that the 8-lane SIMD, fused multiply-add and AVX transposes of the
# VIBES_HOST_CPU paths run too; `swift test` builds the portable baseline only. On a CPU without
# x86-64-v3 there is nothing more to run. `make test` ends with it, so CI runs the kernels on
# whatever vector width its host has. Its first build is a full debug build of the package and its
# tests (measured: 12 minutes on 2 cores shared with another build, 10 alone); later runs rebuild
# what changed (2.6 minutes after one test file changed).
HOST_CPU_TEST_FLAGS := $(shell scripts/host-cpu-flags.sh)
HOST_CPU_SCRATCH := .build-hostcpu
KERNEL_TEST_FILTER := Kernel|KMeans
test-kernels-host-cpu: deps
	@if [ -z "$(HOST_CPU_TEST_FLAGS)" ]; then \
		echo "Kernel tests: portable baseline only (this CPU lacks x86-64-v3); nothing more to run."; \
	else \
		echo "Kernel tests on this CPU's vector width: 256-bit AVX2 with FMA ($(HOST_CPU_TEST_FLAGS))"; \
		swift build --build-tests --scratch-path $(HOST_CPU_SCRATCH) $(HOST_CPU_TEST_FLAGS) && \
		swift test --skip-build --scratch-path $(HOST_CPU_SCRATCH) $(HOST_CPU_TEST_FLAGS) --filter '$(KERNEL_TEST_FILTER)'; \
	fi

clean:
	rm -rf .build $(HOST_CPU_SCRATCH) out

# The import fuzz harness (Tests/IngestTests/ImportFuzzTests.swift) for a minute instead of the 5 s
# of `make test`: random mutations of the fixtures, imported into one store. The seed is printed;
# VIBES_FUZZ_SEED=<seed> replays a run. A crash leaves its input in $(FUZZ_OUT)/current-input (and
# how it was made in current-input.txt): shrink it into Sources/VibesTestSupport/Fixtures/fuzz-crashers.
# Then the token server's request parser (Tests/SpotifyTokenServerTests/TokenServerFuzzTests.swift) for as long:
# mutated requests given in random pieces, whose input is left in $(FUZZ_OUT)/token-server-input.
FUZZ_SECONDS ?= 60
FUZZ_OUT ?= $(CURDIR)/out/fuzz
.PHONY: fuzz
fuzz:
	swift build --build-tests
	@mkdir -p $(FUZZ_OUT)
	VIBES_FUZZ_SECONDS=$(FUZZ_SECONDS) VIBES_FUZZ_OUT=$(FUZZ_OUT) swift test --skip-build --filter ImportFuzz
	VIBES_FUZZ_SECONDS=$(FUZZ_SECONDS) VIBES_FUZZ_OUT=$(FUZZ_OUT) swift test --skip-build --filter TokenServerFuzz
