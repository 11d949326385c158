# SPDX-License-Identifier: GPL-2.0
#
# xiw entry points. Thin: the work is in scripts/ and Kbuild.
#
#   make               xiw.ko for the newest Debian 6.12 headers
#   make KDIR=<tree>   xiw.ko for any other kernel tree (e.g. 6.1 headers)
#   make check         every test tier; last line "N passed, N failed"
#   make demo          two VMs on the stock kernel, xiw0 on each, a report
#   make bench         ib_write_bw and NFS: siw, xiw and TCP side by side
#   make bench-core    the core's FPDU paths on the host, against memcpy
#                      and CRC32c (Google Benchmark)
#   make interop       the full xiw/siw interop matrix with wire checks
#   make deb           build/deb/xiw-dkms_VERSION_all.deb (DKMS package)
#   make install       xiw.ko of this tree into /lib/modules/KREL/updates
#   make fuzz          every libFuzzer target for 10^7 inputs (FUZZ_RUNS),
#                      or FUZZ_TIME s each if FUZZ_TIME is given
#   make clean
#
# Build trees live under build/<kernel release>/ so that builds for several
# kernels never share objects; ./xiw.ko links to the last build.

SHELL := /bin/bash
TOP := $(CURDIR)

# Dependencies are installed on first use; quiet and fast once present.
DEPS := $(TOP)/scripts/deps.sh
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
$(shell $(DEPS) build >&2)
endif

KINFO := $(TOP)/scripts/kernel.sh
KDIR ?= $(shell $(KINFO) headers-6.12)
KREL = $(shell $(KINFO) release $(KDIR))
# The compiler the kernel was built with, from its config.
KCC = $(shell $(KINFO) cc $(KDIR))
BUILD = $(TOP)/build/$(KREL)

MODULE_SOURCES := Kbuild VERSION drivers include kunit testmod scripts/Kbuild.cxx scripts/cxx-object-check.sh

.PHONY: all module check check-full demo bench bench-core interop fuzz deb install clean help

all: module
	@ln -sf $(patsubst $(TOP)/%,%,$(BUILD))/xiw.ko xiw.ko

module:
	@test -d "$(KDIR)" || { echo "KDIR '$(KDIR)' is not a kernel tree" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@rsync -a --delete --exclude='*.o' --exclude='.*.cmd' --exclude='*.ko' \
		--exclude='*.mod*' --exclude='.*.d' --exclude='*.symvers' \
		--exclude='modules.order' --exclude='*.warnings' $(MODULE_SOURCES) $(BUILD)/ --relative
	$(MAKE) -C $(KDIR) M=$(BUILD) CC=$(KCC) $(if $(V),V=$(V)) modules

check:
	@$(TOP)/scripts/check.sh

# Every matrix (Documentation/testing.rst, Tiers): hours, not CI's budget.
check-full:
	@DEPTH=full $(TOP)/scripts/check.sh

demo:
	@$(TOP)/scripts/vm/demo.sh

bench:
	@$(TOP)/scripts/bench.sh

interop:
	@$(TOP)/scripts/interop.sh

# The core's transmit and receive paths on the host, three repetitions,
# the medians against the physical limit (Documentation/performance.rst,
# "The core on the host"). The module build writes the core's warnings.
bench-core: module
	@$(DEPS) host >&2
	@$(MAKE) -C userspace-tests OUT=$(TOP)/build/bench \
		KWARN_FILE=$(BUILD)/drivers/xiw/core/xiw_core.warnings bench
	@python3 userspace-tests/bench/summary.py $(TOP)/build/bench/bench/core_bench.json

# By default each target runs 10^7 inputs (about an hour for all of them
# on a 2-core machine, Documentation/testing.rst); FUZZ_TIME=S runs each
# for S seconds instead.
ifeq ($(origin FUZZ_TIME),undefined)
FUZZ_LIMIT := FUZZ_RUNS=$(or $(FUZZ_RUNS),10000000)
else
FUZZ_LIMIT := FUZZ_TIME=$(FUZZ_TIME)
endif
fuzz:
	@$(DEPS) host >&2
	@$(MAKE) -C userspace-tests OUT=$(TOP)/build/fuzz $(FUZZ_LIMIT) fuzz

# The DKMS package (Documentation/admin-guide.rst, Installing).
deb:
	@$(DEPS) deb >&2
	@$(TOP)/scripts/deb.sh

# This tree's module for KDIR's kernel, where modprobe finds it before the
# kernel's own modules; `rm` it and run depmod again to remove it.
install: module
	install -D -m 644 $(BUILD)/xiw.ko $(DESTDIR)/lib/modules/$(KREL)/updates/xiw.ko
	$(if $(DESTDIR),,depmod -a $(KREL))

clean:
	rm -rf build xiw.ko
