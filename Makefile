# SPDX-License-Identifier: LGPL-2.1-or-later
#
# sriov-persist. Plain make, in the style of wireguard-tools:
#   make                 build into build/
#   make check           install test deps, ASan+UBSan build with -Werror, unit + integration tests, valgrind
#   make check-valgrind  the unit tests and sriovctl under valgrind (plain build)
#   make check-kube      k8s-notify and sriov-persistd against a real kube-apiserver (CI runs it)
#   make demo            apply layouts to a simulated host, end to end
#   make install         PREFIX=/usr DESTDIR=...
#   make format-check    clang-format against .clang-format
#   V=1                  show the commands

PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
PKG_CONFIG ?= pkg-config
SYSTEMDUNITDIR ?= $(or $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null),$(PREFIX)/lib/systemd/system)
SYSTEMDPRESETDIR ?= $(or $(shell $(PKG_CONFIG) --variable=systemdsystempresetdir systemd 2>/dev/null),$(PREFIX)/lib/systemd/system-preset)
# the system bus reads policies here (not /etc, which is the administrator's)
DBUSDATADIR ?= $(PREFIX)/share/dbus-1
UDEVDIR ?= $(or $(shell $(PKG_CONFIG) --variable=udevdir udev 2>/dev/null),$(PREFIX)/lib/udev)
BASHCOMPLETIONDIR ?= $(or $(shell $(PKG_CONFIG) --variable=completionsdir bash-completion 2>/dev/null),$(PREFIX)/share/bash-completion/completions)
DOCDIR ?= $(PREFIX)/share/doc/sriov-persist

BUILDDIR ?= build
SANITIZE ?= 0
WERROR ?= 0

ifeq ($(V),1)
Q =
else
Q = @
endif

# libyaml: sriov-network-operator's file (lib/config/sriov-operator.c) and kubeconfig
DEPS_PKGS = inih json-c libgcrypt libnl-3.0 libnl-route-3.0 libnl-genl-3.0 libudev libsystemd yaml-0.1
# opened with dlopen() when a module is to be loaded (lib/host/host-linux-kmod.c)
DLOPEN_PKGS = libkmod
# k8s-notify alone talks HTTP
K8S_PKGS = libcurl
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS) $(DLOPEN_PKGS) $(K8S_PKGS) 2>/dev/null)
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs $(DEPS_PKGS) 2>/dev/null)
K8S_LIBS := $(shell $(PKG_CONFIG) --libs $(K8S_PKGS) 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wno-missing-field-initializers -Wno-unused-parameter -Wvla -Wdate-time -Wundef \
	-Wmissing-include-dirs -Wold-style-definition -Wpointer-arith -Wnull-dereference
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
ALL_CFLAGS = -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -fno-strict-aliasing -fstack-protector-strong \
	$(LIB_INCLUDES) $(DEPS_CFLAGS) $(CPPFLAGS) $(CFLAGS) -MMD -MP \
	-DSYSCONFDIR='"$(SYSCONFDIR)"' -DLIBEXECDIR='"$(LIBEXECDIR)"' -DVERSION='"$(VERSION)"'
ALL_LDFLAGS = $(LDFLAGS)
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0)

# lib/ in layers, each a folder: base (no SR-IOV), model (what a host has),
# config (the layout language), plan (pure decisions), host (the backends),
# apply (the engine and its records). docs/ARCHITECTURE.md draws them.
LIB_LAYERS := base model config plan host apply
LIB_INCLUDES := $(addprefix -Ilib/,$(LIB_LAYERS))
LIB_SRCS := $(sort $(wildcard $(LIB_LAYERS:%=lib/%/*.c)))
SRIOVCTL_SRCS := $(sort $(wildcard sriovctl/*.c))
HELPER_SRCS := $(sort $(wildcard udev-helper/*.c))
DAEMON_SRCS := $(sort $(wildcard sriov-persistd/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test-*.c))
FUZZ_SRCS := $(filter-out tests/fuzz/fuzz-main.c,$(sort $(wildcard tests/fuzz/fuzz-*.c)))
K8S_SRCS := $(filter-out k8s-notify/k8s-notify.c,$(sort $(wildcard k8s-notify/*.c)))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILDDIR)/obj/%.o)
SRIOVCTL_OBJS := $(SRIOVCTL_SRCS:%.c=$(BUILDDIR)/obj/%.o)
HELPER_OBJS := $(HELPER_SRCS:%.c=$(BUILDDIR)/obj/%.o)
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(BUILDDIR)/obj/%.o)
K8S_OBJS := $(K8S_SRCS:%.c=$(BUILDDIR)/obj/%.o)
K8S_LIBA := $(BUILDDIR)/libk8snotify.a
K8S_NOTIFY := $(BUILDDIR)/k8s-notify
LIBA := $(BUILDDIR)/libsriovpersist.a
SRIOVCTL := $(BUILDDIR)/sriovctl
HELPER := $(BUILDDIR)/udev-helper
DAEMON := $(BUILDDIR)/sriov-persistd
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILDDIR)/tests/%)
# Fuzz targets built as plain programs that replay their corpus (a fuzzer
# engine links the same sources with -fsanitize=fuzzer; see tests/fuzz/fuzz-main.c).
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILDDIR)/tests/%)

.PHONY: all clean check check-vm check-unit check-integration check-valgrind check-valgrind-run check-fuzz demo install \
	format format-check deps tests fuzz bench check-nodeps check-man check-layers check-units deb rpm check-packages bench-vm \
	check-kube
all: $(SRIOVCTL) $(HELPER) $(K8S_NOTIFY) $(DAEMON)

$(BUILDDIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SRIOVCTL): $(SRIOVCTL_OBJS) $(LIBA)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS)

$(HELPER): $(HELPER_OBJS) $(LIBA)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS)

$(DAEMON): $(DAEMON_OBJS) $(LIBA)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS)

$(K8S_LIBA): $(K8S_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(K8S_NOTIFY): $(BUILDDIR)/obj/k8s-notify/k8s-notify.o $(K8S_LIBA) $(LIBA)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS) $(K8S_LIBS)

# k8s-notify's pure modules (the shorter stem wins over test-%)
$(BUILDDIR)/tests/test-k8s-%: tests/unit/test-k8s-%.c $(K8S_LIBA) $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Ik8s-notify $< $(K8S_LIBA) $(LIBA) -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS) $(K8S_LIBS) $(CMOCKA_LIBS)

# FUZZ_MAIN replays files; `make fuzz` links libFuzzer's main instead
FUZZ_MAIN ?= tests/fuzz/fuzz-main.c
$(BUILDDIR)/tests/fuzz-kubeconfig $(BUILDDIR)/tests/fuzz-k8s-verbs $(BUILDDIR)/tests/fuzz-exec-credential: \
		$(BUILDDIR)/tests/fuzz-%: \
		tests/fuzz/fuzz-%.c tests/fuzz/fuzz-main.c $(K8S_LIBA) $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Ik8s-notify $< $(FUZZ_MAIN) $(K8S_LIBA) $(LIBA) -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS) $(K8S_LIBS)

# the daemon's records (its pure operation.c)
$(BUILDDIR)/tests/fuzz-operation: tests/fuzz/fuzz-operation.c tests/fuzz/fuzz-main.c \
		$(BUILDDIR)/obj/sriov-persistd/operation.o $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Isriov-persistd $< $(FUZZ_MAIN) $(BUILDDIR)/obj/sriov-persistd/operation.o $(LIBA) -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS)

# the daemon's pure decisions (the shorter stem wins over test-%)
$(BUILDDIR)/tests/test-daemon-%: tests/unit/test-daemon-%.c $(BUILDDIR)/obj/sriov-persistd/%.o $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Isriov-persistd $< $(BUILDDIR)/obj/sriov-persistd/$*.o $(LIBA) -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS) $(CMOCKA_LIBS)

$(BUILDDIR)/tests/test-%: tests/unit/test-%.c $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -Itests/unit $< $(LIBA) -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS) $(CMOCKA_LIBS)

$(BUILDDIR)/tests/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz-main.c $(LIBA)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $< $(FUZZ_MAIN) $(LIBA) -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS)

# a tool the VM tests run in the guest (tests/vm/nsim-vf.c)
$(BUILDDIR)/vm-nsim-vf: tests/vm/nsim-vf.c $(LIBA)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIBA) -o $@ $(ALL_LDFLAGS) $(DEPS_LIBS)

tests: all $(UNIT_BINS) $(FUZZ_BINS) $(BUILDDIR)/vm-nsim-vf

# Fuzzing with clang's libFuzzer (tests/fuzz/README.md): every target for
# FUZZ_SECONDS, new inputs kept in build/fuzz/corpus, crashes fail.
FUZZ_SECONDS ?= 60
FUZZ_DIR = build/fuzz
fuzz: deps
	$(Q)$(MAKE) --no-print-directory BUILDDIR=$(FUZZ_DIR) CC=clang FUZZ_MAIN= \
		CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined" \
		LDFLAGS="-fsanitize=fuzzer,address,undefined" $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_DIR)/tests/%)
	$(Q)scripts/run-fuzz $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_SRCS:tests/fuzz/fuzz-%.c=%)

deps:
	$(Q)scripts/install-deps

# The tests run against the ASan+UBSan build, warnings as errors; valgrind
# against a plain build (it cannot run sanitized binaries).
ASAN_DIR = build/asan
PLAIN_DIR = build/plain
check: deps
	$(Q)$(MAKE) --no-print-directory BUILDDIR=$(ASAN_DIR) SANITIZE=1 WERROR=1 tests
	$(Q)$(MAKE) --no-print-directory BUILDDIR=$(PLAIN_DIR) WERROR=1 tests
	$(Q)$(MAKE) --no-print-directory format-check check-layers check-units
	$(Q)$(MAKE) --no-print-directory check-unit check-fuzz check-integration check-valgrind-run check-man

# What a package build root runs (debian/rules, the RPM's %check): the same
# tests against one build made with the distribution's flags, nothing
# installed, nothing formatted, no VM, and not the Kubernetes fault matrix
# (minutes of retries and drains that test the code, not the build; make
# check runs it).
check-nodeps: tests
	$(Q)$(MAKE) --no-print-directory TEST_DIR=$(BUILDDIR) PLAIN_TEST_DIR=$(BUILDDIR) \
		K8S_FAULT_MATRIX=no PYTEST_PARALLEL= $(PACKAGE_TESTS)

PACKAGE_TESTS ?= check-unit check-fuzz check-integration check-man

TEST_DIR ?= $(ASAN_DIR)
PLAIN_TEST_DIR ?= $(PLAIN_DIR)
K8S_FAULT_MATRIX ?= yes
# each integration and Kubernetes test has its own hosts, bus and API server:
# two at once, as CI has two cores (package builds run them one by one, and
# need no pytest-xdist)
PYTEST_PARALLEL ?= -p xdist -n 2
check-unit:
	$(Q)scripts/run-unit-tests $(TEST_DIR)/tests

# valgrind against the plain build (it cannot run sanitized binaries): every
# unit test program (a report from a child process fails it too), and sriovctl's
# apply, plan and status (tests/integration/test_apply.py -k valgrind). make
# check runs the same after its plain build.
check-valgrind:
	$(Q)$(MAKE) --no-print-directory BUILDDIR=$(PLAIN_DIR) WERROR=1 tests
	$(Q)$(MAKE) --no-print-directory check-valgrind-run

check-valgrind-run:
	$(Q)scripts/run-valgrind $(PLAIN_TEST_DIR)/tests
	$(Q)SRIOVCTL=$(abspath $(PLAIN_TEST_DIR))/sriovctl SRIOVCTL_PLAIN=$(abspath $(PLAIN_TEST_DIR))/sriovctl \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider tests/integration/test_apply.py -k valgrind

check-fuzz:
	$(Q)for f in $(FUZZ_SRCS:tests/fuzz/%.c=$(TEST_DIR)/tests/%); do \
		n=$${f##*/fuzz-}; $$f tests/fuzz/corpus/$$n/* || exit 1; done

check-integration:
	$(Q)SRIOVCTL=$(abspath $(TEST_DIR))/sriovctl SRIOVCTL_PLAIN=$(abspath $(PLAIN_TEST_DIR))/sriovctl \
		SRIOVPERSISTD=$(abspath $(TEST_DIR))/sriov-persistd K8S_NOTIFY=$(abspath $(TEST_DIR))/k8s-notify \
		SRIOV_UDEV_HELPER=$(abspath $(TEST_DIR))/udev-helper \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider $(PYTEST_PARALLEL) \
		--ignore=tests/integration/test_daemon_k8s_faults.py tests/integration
	@# the Kubernetes fault matrix mostly waits (retries, drains): four at once
	$(Q)[ "$(K8S_FAULT_MATRIX)" = no ] || SRIOVCTL=$(abspath $(TEST_DIR))/sriovctl SRIOVPERSISTD=$(abspath $(TEST_DIR))/sriov-persistd \
		K8S_NOTIFY=$(abspath $(TEST_DIR))/k8s-notify \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider -p xdist -n 4 \
		tests/integration/test_daemon_k8s_faults.py
	$(Q)K8S_NOTIFY=$(abspath $(TEST_DIR))/k8s-notify \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider $(PYTEST_PARALLEL) tests/k8s

# each layer of lib/ includes only its own and lower ones, and no module
# includes itself round a circle
check-layers:
	$(Q)scripts/check-layers $(LIB_LAYERS)

# each unit's exposure (systemd-analyze security) stays where docs/SECURITY.md says
check-units:
	$(Q)scripts/check-units

# every manual renders without a warning, as lintian reads them
check-man:
	$(Q)scripts/check-man $(MANPAGES)

# The real Kubernetes API server (tests/kube/README.md): etcd, and the kube-apiserver
# and kube-controller-manager of ../shared/kube, on 127.0.0.1 for one pytest session;
# k8s-notify and sriov-persistd of the ASan build against them. A tier of its own, as
# check-vm is: CI runs it after make check, and without etcd or ../shared/kube it fails.
check-kube: deps
	$(Q)$(MAKE) --no-print-directory BUILDDIR=$(ASAN_DIR) SANITIZE=1 WERROR=1 all
	$(Q)SRIOVCTL=$(abspath $(ASAN_DIR))/sriovctl SRIOVPERSISTD=$(abspath $(ASAN_DIR))/sriov-persistd \
		K8S_NOTIFY=$(abspath $(ASAN_DIR))/k8s-notify \
		/usr/bin/python3 -m pytest -q -p no:cacheprovider tests/kube

# VM tests: a real kernel with an emulated SR-IOV NIC, real systemd and udev
# (tests/vm/README.md). Needs root; builds and caches the guest image.
check-vm:
	$(Q)tests/vm/setup-host
	$(Q)/usr/bin/python3 tests/vm/build-image
	$(Q)SRIOV_VM_NO_BUILD=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider \
		--reruns 1 --only-rerun 'VMEmulatorFault|VMStallError' tests/vm

# Benchmarks: measured, never asserted (docs/PERFORMANCE.md).
bench: deps
	$(Q)$(MAKE) --no-print-directory BUILDDIR=$(PLAIN_DIR) all
	$(Q)SRIOVPERSISTD=$(CURDIR)/$(PLAIN_DIR)/sriov-persistd /usr/bin/python3 bench/daemon-sim.py
	$(Q)/usr/bin/python3 bench/sim-scale.py --sriovctl $(CURDIR)/$(PLAIN_DIR)/sriovctl
	$(Q)/usr/bin/python3 bench/metrics-scale.py --sriovctl $(CURDIR)/$(PLAIN_DIR)/sriovctl
	$(Q)SRIOVPERSISTD=$(CURDIR)/$(PLAIN_DIR)/sriov-persistd K8S_NOTIFY=$(CURDIR)/$(PLAIN_DIR)/k8s-notify \
		SRIOVCTL=$(CURDIR)/$(PLAIN_DIR)/sriovctl /usr/bin/python3 bench/k8s-outage.py

# The same on a real kernel in the VM of the VM tests (needs root; builds the image once):
# sriovctl apply beside a shell loop and a .link file, and the daemon's footprint.
bench-vm:
	$(Q)tests/vm/setup-host
	$(Q)/usr/bin/python3 tests/vm/build-image
	$(Q)/usr/bin/python3 bench/apply-vm.py
	$(Q)/usr/bin/python3 bench/boot-vm.py
	$(Q)/usr/bin/python3 bench/daemon-vm.py

demo: deps
	$(Q)$(MAKE) --no-print-directory BUILDDIR=$(PLAIN_DIR) all
	$(Q)scripts/demo $(PLAIN_DIR)/sriovctl

MANPAGES = $(sort $(wildcard man/*.[578]))
install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBEXECDIR)/sriov-persist \
		$(DESTDIR)$(SYSCONFDIR)/sriov-persist/conf.d \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(SYSTEMDUNITDIR) \
		$(DESTDIR)$(SYSTEMDPRESETDIR) $(DESTDIR)$(UDEVDIR)/rules.d $(DESTDIR)$(BASHCOMPLETIONDIR) \
		$(DESTDIR)$(DOCDIR)/examples/k8s $(DESTDIR)$(DOCDIR)/examples/prometheus \
		$(DESTDIR)$(DOCDIR)/examples/fleet \
		$(DESTDIR)$(DBUSDATADIR)/system.d $(DESTDIR)$(DBUSDATADIR)/system-services
	install -m 0755 $(SRIOVCTL) $(DESTDIR)$(SBINDIR)/sriovctl
	install -m 0755 $(DAEMON) $(DESTDIR)$(SBINDIR)/sriov-persistd
	install -m 0755 $(HELPER) $(DESTDIR)$(LIBEXECDIR)/sriov-persist/udev-helper
	install -m 0755 $(K8S_NOTIFY) $(DESTDIR)$(LIBEXECDIR)/sriov-persist/k8s-notify
	install -m 0644 dbus/org.sriovpersist1.conf $(DESTDIR)$(DBUSDATADIR)/system.d/
	install -m 0644 dbus/org.sriovpersist1.service $(DESTDIR)$(DBUSDATADIR)/system-services/
	install -m 0644 rules.d/70-sriov-persist.rules $(DESTDIR)$(UDEVDIR)/rules.d/
	install -m 0644 units/sriov-persist-apply@.service units/sriov-persist-wait.service \
		units/sriov-persistd.service units/sriov-persist-kernel-arguments@.service \
		units/sriov-persist-metrics.service units/sriov-persist-metrics.timer \
		$(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 units/80-sriov-persist.preset $(DESTDIR)$(SYSTEMDPRESETDIR)/
	install -m 0644 $(filter %.5,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(filter %.7,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(filter %.8,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 shell/bash-completion/sriovctl $(DESTDIR)$(BASHCOMPLETIONDIR)/sriovctl
	install -m 0644 conf.d/*.conf $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 packaging/k8s/*.yaml packaging/k8s/kubeconfig.example \
		$(DESTDIR)$(DOCDIR)/examples/k8s/
	install -m 0644 packaging/prometheus/*.yml $(DESTDIR)$(DOCDIR)/examples/prometheus/
	install -m 0644 packaging/fleet/*.yaml packaging/fleet/*.yml $(DESTDIR)$(DOCDIR)/examples/fleet/
	@# the administrator's file is never overwritten by hand installs
	test -e $(DESTDIR)$(SYSCONFDIR)/sriov-persist/sriov-persist.conf || \
		install -m 0644 conf/sriov-persist.conf $(DESTDIR)$(SYSCONFDIR)/sriov-persist/

# Packages, built from the committed tree (git archive) under build/pkg:
# packaging/deb/debian and packaging/rpm/sriov-persist.spec.
deb:
	$(Q)scripts/install-deps deb
	$(Q)scripts/build-package deb

rpm:
	$(Q)scripts/install-deps rpm
	$(Q)scripts/build-package rpm

# CI: both packages, both linters, the same files in each. The .deb's tests
# are make check's, and check-vm installs, upgrades and removes it on a real
# kernel; the .rpm runs its %check with the build's own flags, but not the
# integration tier, which make check has just run on the same sources (CI
# keeps well under 40 minutes; a build root outside CI runs all of it).
check-packages:
	$(Q)scripts/install-deps deb
	$(Q)scripts/install-deps rpm
	$(Q)DEB_BUILD_OPTIONS=nocheck scripts/build-package deb
	$(Q)PACKAGE_TESTS="check-unit check-fuzz check-man" scripts/build-package rpm
	$(Q)scripts/compare-packages build/pkg/deb build/pkg/rpm

FORMAT_SRCS = $(sort $(wildcard lib/*/*.[ch] sriovctl/*.[ch] udev-helper/*.[ch] sriov-persistd/*.[ch] k8s-notify/*.[ch] tests/unit/*.[ch] tests/fuzz/*.[ch] tests/vm/*.c))
format:
	$(Q)clang-format -i $(FORMAT_SRCS)
format-check:
	$(Q)clang-format --dry-run --Werror $(FORMAT_SRCS)

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(SRIOVCTL_OBJS:.o=.d) $(HELPER_OBJS:.o=.d) $(K8S_OBJS:.o=.d) \
	$(BUILDDIR)/obj/k8s-notify/k8s-notify.d $(DAEMON_OBJS:.o=.d)
