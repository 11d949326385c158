# SPDX-License-Identifier: GPL-2.0
#
# Kbuild rule for the module's one C++ object. Included by the Kbuild file
# that sets cxx-obj (the object, with its $(obj)/ prefix) and lists it among
# the module's parts.
#
# The flags are the kernel's own KBUILD_CFLAGS and KBUILD_CFLAGS_MODULE,
# less the flags that only mean something to C, plus the switches that keep
# C++ freestanding. objtool runs exactly as for a C object (cmd_objtool, so
# it is deferred to the module link where Kbuild defers it for C), and the
# object is rejected if it carries C++ runtime leftovers.

ifneq ($(words $(cxx-obj)),1)
$(error the module must have exactly one C++ object, cxx-obj is '$(cxx-obj)')
endif

# g++ of the kernel compiler's version: gcc-12 -> g++-12.
CXX := $(patsubst %gcc,%g++,$(subst gcc-,g++-,$(CC)))

cxx-c-only-flags := -std=gnu11 -std=gnu89 -Wno-pointer-sign \
	-Wstrict-prototypes -Werror=strict-prototypes \
	-Werror=implicit-function-declaration -Werror=implicit-int \
	-Werror=incompatible-pointer-types -Werror=designated-init \
	-Wdeclaration-after-statement -Wmissing-prototypes \
	-Wold-style-definition -Wno-old-style-declaration \
	-Werror=int-conversion -Wimplicit-int -Wnested-externs \
	-Wmissing-parameter-type -Wold-style-declaration \
	-Wno-missing-prototypes -Wno-override-init

cxx-freestanding-flags := -nostdinc -std=gnu++20 -fno-exceptions -fno-rtti \
	-fno-threadsafe-statics -fno-use-cxa-atexit -fno-unwind-tables \
	-fcheck-new

# pahole (BTF for modules) cannot encode C++ type information (templates,
# references) and fails the module link. Level 1 debug info keeps what
# backtraces and addr2line need (functions, line tables) and no types.
ifdef CONFIG_DEBUG_INFO_BTF_MODULES
cxx-freestanding-flags += -g1
endif

# KASAN instruments the core like every C object of the module: Kbuild
# adds CFLAGS_KASAN per C object (scripts/Makefile.lib), not to
# KBUILD_CFLAGS, so the C++ rule must add it itself. Globals are left out:
# registering them takes a constructor, which the core may not carry (the
# check below rejects .init_array); the core's globals are constant tables.
ifdef CONFIG_KASAN_GENERIC
cxx-sanitize-flags := $(CFLAGS_KASAN) --param asan-globals=0
endif

cxx_flags = -Wp,-MMD,$(depfile) \
	$(filter-out $(cxx-c-only-flags),$(KBUILD_CFLAGS) $(KBUILD_CFLAGS_MODULE)) \
	$(cxx-sanitize-flags) $(cxx-freestanding-flags) $(cxxflags-y)

# The warning flags are also written next to the object: the host build of
# the core (userspace-tests/) compiles with exactly this set.
quiet_cmd_cxx_o_cpp = CXX [M]  $@
      cmd_cxx_o_cpp = $(CXX) $(cxx_flags) -c -o $@ $< ; \
		$(CONFIG_SHELL) $(cxx-check) $(NM) $(READELF) $@ ; \
		printf '%s\n' $(filter -W%,$(filter-out -Wp$(comma)%,$(cxx_flags))) > $(@:.o=.warnings) \
		$(cmd_objtool)

define rule_cxx_o_cpp
	$(call cmd_and_fixdep,cxx_o_cpp)
	$(call cmd,gen_objtooldep)
endef

$(cxx-obj): $(obj)/%.o: $(src)/%.cpp $(cxx-check) FORCE
	$(call if_changed_rule,cxx_o_cpp)
