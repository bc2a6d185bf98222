/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* Run by udev and by sriov-persist-apply@.service:
 *   udev-helper match PCI   for IMPORT{program}: prints SRIOV_PERSIST_PF= and
 *                           SRIOV_PERSIST_UNIT= when a layout may select the PF
 *   udev-helper vf PCI      for IMPORT{program} on a VF's netdev: prints
 *                           NM_UNMANAGED=1 and ID_NET_MANAGED_BY= when the
 *                           layouts keep the VF from the host's network stack
 *   udev-helper apply PCI   applies the layouts of one PF; logs to the journal
 * and by sriov-persist-kernel-arguments@.service:
 *   udev-helper kernel-arguments add|remove
 *                           adds the IOMMU arguments this host's kernel
 *                           command line lacks through the boot loader's
 *                           tool, or takes out those it added
 * The options (--host FILE, the directories, --root DIR) are for tests: the
 * boot runs it without any. */

#include <ctype.h>
#include <limits.h>
#include <sys/stat.h>
#include <syslog.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "apply.h"
#include "boot-loader.h"
#include "cli-options.h"
#include "host-linux.h"
#include "host-sim.h"
#include "host-stack.h"
#include "k8s-judge.h"
#include "match.h"

#define SYSLOG_ID "sriov-persist"
/* What ID_NET_MANAGED_BY= says of a VF kept from the host's network stack:
 * systemd-networkd (255 on) leaves a device alone unless it says
 * io.systemd.Network; NetworkManager releases that know the property
 * unless it says org.freedesktop.NetworkManager (NM_UNMANAGED=1 is what
 * every release reads). */
#define MANAGED_BY "sriov-persist"

static struct {
	struct cli_paths paths;	       /* the options all three programs take */
	char *runtime_dir, *state_dir; /* default: /run, /var/lib, or FILE.run, FILE.lib */
	const char *root;	       /* --root: kernel-arguments works under it */
	const char *k8s_notify;	       /* --k8s-notify */
} arg = { .k8s_notify = K8S_NOTIFY_DEFAULT };

/* match asks only whether a layout may select the PF: it does not wait
 * for firmware tools. */
static int open_host(bool firmware, struct host **ret)
{
	const struct host_linux_options o = { .no_firmware = !firmware };

	return arg.paths.host ? host_sim_open(arg.paths.host, ret, NULL) : host_linux_open(&o, ret);
}

/* Whether standard error is the journal already (systemd sets
 * JOURNAL_STREAM=DEV:INODE for a unit whose output goes there). */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* An error that makes apply exit 1, run by hand: also on standard error,
 * so that the exit status never comes without why. Under its unit, whose
 * standard error is the journal, the journal has it once, with its fields. */
static void echo_error(const char *msg)
{
	static int journal = -1;

	if (journal < 0)
		journal = stderr_is_journal();
	if (!journal)
		fprintf(stderr, "%s\n", msg);
}

static void log_diags(const struct diag_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct diag *d = &l->items[i];
		_cleanup_free_ char *s = diag_format(d);

		if (d->level == DIAG_ERROR)
			echo_error(s ?: d->msg);
		sd_journal_send("MESSAGE=%s", s ?: d->msg, "PRIORITY=%d",
				d->level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "CONFIG_FILE=%s",
				strempty(d->file), "CONFIG_LINE=%u", d->line,
				"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
	}
}

static int verb_match(const char *pci)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_host_ struct host *h = NULL;
	const struct pf_state *pf;
	int r;

	r = layout_set_load_dir(arg.paths.config_dir, &set);
	if (r >= 0)
		r = open_host(false, &h);
	if (r >= 0)
		r = host_read_pf(h, pci, &hs);
	if (r < 0)
		return r;
	pf = host_state_find_pf(hs, pci);
	/* The apply unit decides with the final name and the bound driver, and
	 * does nothing when no layout selects the PF. */
	if (pf && layout_set_may_select(set, pf, hs->hostname))
		printf("SRIOV_PERSIST_PF=%s\nSRIOV_PERSIST_UNIT=sriov-persist-apply@%s.service\n",
		       pci, pci);
	return 0;
}

/* The PF of VF pci into ret: on the running kernel its physfn link (one
 * readlink, not a read of every PF, as udev runs this for every VF), on a
 * simulated host the PF that lists it. 0 when pci is no VF. */
static int pf_of_vf(struct host *h, const char *pci, char ret[static PCI_ADDR_MAX])
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_free_ char *link = NULL;
	char target[PATH_MAX];
	const char *base;
	ssize_t n;
	int r;

	if (!arg.paths.host) {
		link = strdup_printf("/sys/bus/pci/devices/%s/physfn", pci);
		if (!link)
			return -ENOMEM;
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			return errno == ENOENT ? 0 : -errno;
		target[n] = '\0';
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		if (!pci_addr_is_valid(base) || strlen(base) >= PCI_ADDR_MAX)
			return -EBADMSG;
		memcpy(ret, base, strlen(base) + 1);
		return 1;
	}
	r = host_read(h, &hs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < hs->n_pfs; i++)
		for (size_t j = 0; j < hs->pfs[i].n_vfs; j++)
			if (streq(hs->pfs[i].vfs[j].pci, pci)) {
				snprintf(ret, PCI_ADDR_MAX, "%s", hs->pfs[i].pci);
				return 1;
			}
	return 0;
}

/* Whether the layouts that select VF pci's PF keep it from the host's
 * network stack: 1 yes, 0 no opinion or no such VF. */
static int vf_unmanaged(struct layout_set *set, struct host *h, const char *pci)
{
	_cleanup_host_state_ struct host_state *hs = NULL;
	_cleanup_pf_desired_ struct pf_desired *d = NULL;
	struct diag_list diags = {};
	enum host_network_stack stack = HOST_NETWORK_STACK_MANAGED;
	char pf_pci[PCI_ADDR_MAX];
	const struct pf_state *pf;
	int r;

	r = pf_of_vf(h, pci, pf_pci);
	if (r <= 0)
		return r;
	r = host_read_pf(h, pf_pci, &hs);
	if (r < 0)
		return r;
	pf = host_state_find_pf(hs, pf_pci);
	for (size_t i = 0; pf && i < pf->n_vfs; i++) {
		if (!streq(pf->vfs[i].pci, pci))
			continue;
		/* the errors hold the PF for the apply unit; the lines that
		 * parsed still say which VFs are pods' */
		r = desired_build(set, hs, pf, &diags, &d);
		diag_list_done(&diags);
		if (r >= 0 && d)
			r = pf_desired_host_network_stack(set, d, pf->vfs[i].index, &stack);
		return r > 0 ? stack == HOST_NETWORK_STACK_UNMANAGED : r;
	}
	return 0;
}

static int verb_vf(const char *pci)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_ struct host *h = NULL;
	int r;

	r = layout_set_load_dir(arg.paths.config_dir, &set);
	if (r >= 0)
		r = open_host(false, &h);
	if (r >= 0)
		r = vf_unmanaged(set, h, pci);
	if (r > 0)
		printf("NM_UNMANAGED=1\nID_NET_MANAGED_BY=%s\n", MANAGED_BY);
	return r < 0 ? r : 0;
}

static void log_pf(const struct apply_pf_result *res)
{
	const struct pf_status *st = &res->status;
	/* applied as far as it goes: VFs another tool is to make are missing */
	const char *waiting = st->state == PF_STATUS_APPLIED && st->waiting && st->waiting[0] ?
				      st->waiting[0] :
				      NULL;
	const char *state = waiting ? "pending" : pf_status_state_to_string(st->state);
	const char *why = st->error ?: waiting;

	if (!res->configured)
		return;
	if (st->state != PF_STATUS_APPLIED) {
		_cleanup_free_ char *line = strdup_printf("%s (%s): %s: %s", st->pci,
							  strna(st->name), state, strempty(why));

		echo_error(line ?: state);
	}
	sd_journal_send("MESSAGE=%s (%s): %s%s%s%s", st->pci, strna(st->name), state,
			res->changed ? "" : " (nothing to change)", why ? ": " : "", strempty(why),
			"PRIORITY=%d", st->state == PF_STATUS_APPLIED ? LOG_INFO : LOG_ERR,
			"SRIOV_PF=%s", st->pci, "SRIOV_IFNAME=%s", strna(st->name),
			"SRIOV_STATE=%s", state, "SRIOV_ACTIONS=%u", st->n_actions,
			"SRIOV_HOST_USEC=%llu", (unsigned long long)st->host_usec,
			"SRIOV_TOTAL_USEC=%llu", (unsigned long long)(st->finished - st->started),
			"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
	for (char **r = st->reboot_reasons; r && *r; r++)
		sd_journal_send("MESSAGE=%s (%s): reboot needed: %s", st->pci, strna(st->name), *r,
				"PRIORITY=%d", LOG_WARNING, "SRIOV_PF=%s", st->pci,
				"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
}

static void helper_log_action(const struct pf_state *pf, const struct action *a, int r,
			      const char *detail, void *userdata)
{
	_cleanup_free_ char *d = action_describe(a);

	sd_journal_send("MESSAGE=%s (%s): %s%s%s%s%s", pf->pci, strna(pf->name), strna(d),
			r < 0 ? " failed: " : "", r < 0 ? strerror(-r) : "",
			r < 0 && detail && *detail ? ": " : "", r < 0 ? strempty(detail) : "",
			"PRIORITY=%d", r < 0 ? LOG_ERR : LOG_DEBUG, "SRIOV_PF=%s", pf->pci,
			"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
}

#define SYSTEMD "org.freedesktop.systemd1"
#define SYSTEMD_PRIVATE "unix:path=/run/systemd/private"
#define BOOT_GATE "sriov-persist-wait.service"

/* A connection to systemd itself. The apply units run in the sysinit phase,
 * where the system bus (dbus.socket, after sysinit.target) may not listen
 * yet: as root, ask PID 1 on its private socket, as systemctl does; the
 * system bus is the fallback. */
static int systemd_bus_open(sd_bus **ret)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

	if (geteuid() == 0 && sd_bus_new(&bus) >= 0 &&
	    sd_bus_set_address(bus, SYSTEMD_PRIVATE) >= 0 && sd_bus_start(bus) >= 0) {
		*ret = TAKE_PTR(bus);
		return 0;
	}
	return sd_bus_open_system(ret);
}

/* At boot, before the boot gate lets kubelet start, nothing uses the VFs yet:
 * disruptive changes run directly, whatever [Disruption] Policy= says for a
 * running system. That is so while systemd is still starting up and the gate
 * has not finished: its start job is queued (it is ordered after the apply
 * units) or running. Anything else, or any doubt (no answer from systemd,
 * no gate), is a running system. */
static bool before_boot_gate(const char *pci)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error err = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL, *job = NULL;
	_cleanup_free_ char *system = NULL, *active = NULL;
	const char *unit;
	uint32_t job_id = 0;
	bool boot;

	if (arg.paths.host) /* a simulated host is never booting */
		return false;
	if (systemd_bus_open(&bus) < 0 ||
	    sd_bus_get_property_string(bus, SYSTEMD, "/org/freedesktop/systemd1",
				       SYSTEMD ".Manager", "SystemState", &err, &system) < 0)
		return false;
	if (!streq(system, "initializing") && !streq(system, "starting"))
		return false;
	if (sd_bus_call_method(bus, SYSTEMD, "/org/freedesktop/systemd1", SYSTEMD ".Manager",
			       "GetUnit", &err, &reply, "s", BOOT_GATE) < 0 ||
	    sd_bus_message_read(reply, "o", &unit) < 0 ||
	    sd_bus_get_property_string(bus, SYSTEMD, unit, SYSTEMD ".Unit", "ActiveState", &err,
				       &active) < 0 ||
	    sd_bus_get_property(bus, SYSTEMD, unit, SYSTEMD ".Unit", "Job", &err, &job, "(uo)") <
		    0 ||
	    sd_bus_message_read(job, "(uo)", &job_id, NULL) < 0)
		return false;
	boot = streq(active, "activating") || (streq(active, "inactive") && job_id > 0);
	if (boot)
		sd_journal_send("MESSAGE=%s: the system is booting and %s has not finished: "
				"disruptive changes run now, nothing uses the VFs yet",
				pci, BOOT_GATE, "PRIORITY=%d", LOG_INFO, "SRIOV_PF=%s", pci,
				"SYSLOG_IDENTIFIER=%s", SYSLOG_ID, NULL);
	return boot;
}

static int verb_apply(const char *pci)
{
	_cleanup_layout_set_ struct layout_set *set = NULL;
	_cleanup_host_ struct host *h = NULL;
	struct apply_result res = {};
	struct diag_list diags = {};
	struct mainconf conf = {};
	struct k8s_drain_judge drain = { .k8s_notify = arg.k8s_notify,
					 .main_config = arg.paths.main_config,
					 .conf = &conf };
	struct apply_options opts = {
		.conf = &conf,
		.runtime_dir = arg.runtime_dir,
		.state_dir = arg.state_dir,
		.only = pci,
		.on_action = helper_log_action,
		.drain_refusal = k8s_drain_refusal,
		.drain_userdata = &drain,
	};
	int r;

	r = mainconf_load(arg.paths.main_config, &conf, &diags);
	log_diags(&diags);
	/* its policy cannot be known: hold, and say so in the record */
	if (r >= 0 && diag_count(&diags, DIAG_ERROR) > 0)
		opts.hold = "the main configuration has errors; nothing is applied until they "
			    "are fixed";
	diag_list_done(&diags);
	if (r < 0)
		return r;
	opts.allow_disruptive = !opts.hold && before_boot_gate(pci);
	r = layout_set_load_dir(arg.paths.config_dir, &set);
	if (r >= 0)
		r = layout_set_load_others(set, NULL);
	if (r >= 0)
		r = open_host(true, &h);
	if (r >= 0) {
		layout_set_use_mainconf(set, &conf);
		log_diags(&set->diags);
		r = apply_run(h, set, &opts, &res);
	}
	k8s_drain_judge_done(&drain);
	mainconf_done(&conf);
	if (r < 0 && r != -EIO) {
		sd_journal_send("MESSAGE=%s: applying failed: %s%s%s", pci, read_strerror(r),
				h && h->error[0] ? ": " : "", h ? h->error : "", "PRIORITY=%d",
				LOG_ERR, "SRIOV_PF=%s", pci, "SYSLOG_IDENTIFIER=%s", SYSLOG_ID,
				NULL);
		return r;
	}
	log_diags(&res.diags);
	for (size_t i = 0; i < res.n_pfs; i++)
		log_pf(&res.pfs[i]);
	apply_result_done(&res);
	return r;
}

/* The IOMMU arguments this host's kernel command line lacks, as the
 * planner computes them: from /proc/cpuinfo and /proc/cmdline; of those,
 * the ones the boot loader's configuration lacks too (*ret_unset). */
static int missing_iommu_args(const char *root, char **ret, char **ret_unset, char **ret_error)
{
	_cleanup_free_ char *cpuinfo = NULL, *cmdline = NULL, *p1 = NULL, *p2 = NULL;
	_cleanup_free_ char *against = NULL;
	struct host_state h = {};
	int r, v;

	p1 = strdup_printf("%s/proc/cpuinfo", root);
	p2 = strdup_printf("%s/proc/cmdline", root);
	if (!p1 || !p2)
		return -ENOMEM;
	r = read_file(p1, &cpuinfo);
	if (r >= 0)
		r = read_file(p2, &cmdline);
	if (r < 0)
		return r;
	strip_newline(cmdline);
	v = cpu_vendor_from_cpuinfo(cpuinfo);
	h.has_cpu_vendor = v >= 0;
	h.cpu_vendor = v >= 0 ? (enum cpu_vendor)v : CPU_VENDOR_INTEL;
	h.kernel_cmdline = cmdline;
	r = iommu_args_missing(&h, ret);
	if (r < 0 || !*ret)
		return r;
	r = boot_loader_cmdlines(root, boot_loader_detect(root), &h.boot_cmdlines,
				 &h.boot_iommu_off, ret_error);
	if (r >= 0)
		r = kernel_args_unset(&h, *ret, ret_unset);
	if (r >= 0)
		r = kernel_args_contradicted(&h, *ret_unset, &against);
	if (r >= 0 && against) {
		/* added or not, the kernel would take the IOMMU off: touch nothing */
		*ret_error = strdup_printf("%s; remove it", against);
		r = *ret_error ? -EBADMSG : -ENOMEM;
	}
	strv_free(h.boot_cmdlines);
	strv_free(h.boot_iommu_off);
	return r;
}

static int verb_kernel_arguments(const char *op)
{
	const char *root = arg.root ?: "";
	_cleanup_free_ char *args = NULL, *unset = NULL, *error = NULL;
	_cleanup_strv_free_ char **words = NULL;
	int r;

	if (streq(op, "remove")) {
		r = kernel_args_remove(root, &error);
		if (r < 0 && error)
			fprintf(stderr, "taking the kernel arguments out: %s\n", error);
		return r < 0 ? (error ? -EIO : r) : 0;
	}
	r = missing_iommu_args(root, &args, &unset, &error);
	if (r == -EBADMSG && error) {
		fprintf(stderr, "leaving the boot loader's configuration as it is: %s\n", error);
		return -EIO;
	}
	if (r < 0)
		return r;
	if (!args) {
		fprintf(stderr, "no IOMMU argument to add: the kernel command line has it, the "
				"CPU is arm64 (its SMMU is on when the firmware describes it), or "
				"neither Intel's nor AMD's\n");
		return 0;
	}
	if (!unset) {
		fprintf(stderr,
			"the boot loader's configuration has the kernel arguments %s already; "
			"they take effect at the next boot\n",
			args);
		return 0;
	}
	if (strv_split(unset, &words) < 0)
		return -ENOMEM;
	r = kernel_args_add(root, words, &error);
	if (r < 0) {
		if (error)
			fprintf(stderr, "adding the kernel arguments %s: %s\n", unset, error);
		return error ? -EIO : r;
	}
	fprintf(stderr,
		"added the kernel arguments %s through %s; they take effect at the "
		"next boot\n",
		unset, boot_loader_to_string(boot_loader_detect(root)));
	return 0;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [OPTIONS] match|vf|apply PCI-ADDRESS\n"
		"       %s [--root DIR] kernel-arguments add|remove\n",
		prog, prog);
}

enum {
	ARG_ROOT = CLI_OPT_PROGRAM,
	ARG_K8S_NOTIFY,
};

static const struct cli_option own_options[] = {
	{ ARG_ROOT, "root", "DIR", "kernel-arguments: tools and files under DIR (tests)" },
	{ ARG_K8S_NOTIFY, "k8s-notify", "FILE",
	  "apply: the Kubernetes client asked about the credentials\n"
	  "(an absolute path; default " K8S_NOTIFY_DEFAULT ")",
	  CLI_CHECK_PROGRAM },
};

static const struct cli_program program = {
	.options = own_options,
	.n_options = ELEMENTSOF(own_options),
	.column = 26,
};

static void help(const char *prog)
{
	usage(stdout, prog);
	printf("\n"
	       "Run by udev and the units of sriov-persist (see udev-helper(8)), not by hand.\n"
	       "  match PCI               print SRIOV_PERSIST_PF= when a layout may select the PF\n"
	       "  vf PCI                  print NM_UNMANAGED=1 when the layouts keep the VF from\n"
	       "                          the host's network stack\n"
	       "  apply PCI               apply the layouts of one PF (sriov-persist-apply@.service)\n"
	       "  kernel-arguments add|remove\n"
	       "                          the IOMMU kernel arguments, through the boot loader tool\n"
	       "\n"
	       "Options:\n");
	cli_print_options(&program, stdout);
}

/* Whether s is a PCI address but for upper-case hex digits, lowered into
 * buf: the kernel's names (and so udev's %k) are lower case. */
static bool pci_addr_lower(const char *s, char buf[static PCI_ADDR_MAX])
{
	size_t n = strlen(s);

	if (n >= PCI_ADDR_MAX)
		return false;
	for (size_t i = 0; i <= n; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	return pci_addr_is_valid(buf);
}

/* A command and its one argument; says on stderr what is wrong otherwise. */
static bool args_valid(int n, char **args)
{
	char lower[PCI_ADDR_MAX];

	if (n != 2) {
		fprintf(stderr, "%s\n",
			n < 2 ? "a command and its argument are needed" : "too many arguments");
		return false;
	}
	if (streq(args[0], "kernel-arguments")) {
		if (streq(args[1], "add") || streq(args[1], "remove"))
			return true;
		fprintf(stderr, "kernel-arguments: '%s': expected add or remove\n", args[1]);
		return false;
	}
	if (pci_addr_is_valid(args[1]))
		return true;
	if (pci_addr_lower(args[1], lower))
		fprintf(stderr,
			"%s: '%s': PCI addresses are lower case, as the kernel writes them: %s\n",
			args[0], args[1], lower);
	else
		fprintf(stderr,
			"%s: '%s' is not a PCI address (domain included, as 0000:3b:00.0)\n",
			args[0], args[1]);
	return false;
}

/* optind to go on, 0 after --help, < 0 on bad usage (-EINVAL) or -ENOMEM.
 * The paths are taken as they are, without cli_paths_check(): what cannot
 * be read is an error that holds the PF, and its status record says why. */
static int parse_argv(int argc, char **argv)
{
	char why[CLI_ERROR_MAX];
	int opt;

	while ((opt = cli_next(&program, argc, argv)) >= 0) {
		/* a program to run is checked: it is not a file to read */
		if (cli_option_check(&program, opt, optarg, why) < 0) {
			fprintf(stderr, "%s\n", why);
			return -EINVAL;
		}
		if (cli_paths_set(&arg.paths, opt, optarg))
			continue;
		if (opt == CLI_OPT_HELP) {
			help(argv[0]);
			return 0;
		}
		if (opt == ARG_K8S_NOTIFY)
			arg.k8s_notify = optarg;
		else if (opt == ARG_ROOT)
			arg.root = optarg;
		else
			return -EINVAL;
	}
	if (!args_valid(argc - optind, argv + optind)) {
		usage(stderr, argv[0]);
		return -EINVAL;
	}
	/* as sriovctl --host: the same locks and records */
	if (cli_paths_dirs(&arg.paths, &arg.runtime_dir, &arg.state_dir) < 0)
		return -ENOMEM;
	return optind;
}

int main(int argc, char **argv)
{
	const char *verb, *pci;
	int r;

	r = parse_argv(argc, argv);
	if (r <= 0) {
		free(arg.runtime_dir);
		free(arg.state_dir);
		return r == 0 ? 0 : r == -ENOMEM ? 1 : 2;
	}
	verb = argv[r];
	pci = argv[r + 1];
	if (streq(verb, "match"))
		r = verb_match(pci);
	else if (streq(verb, "vf"))
		r = verb_vf(pci);
	else if (streq(verb, "apply"))
		r = verb_apply(pci);
	else if (streq(verb, "kernel-arguments"))
		r = verb_kernel_arguments(pci);
	else {
		fprintf(stderr, "Unknown command '%s'\n", verb);
		r = 2;
	}
	if (r < 0 && r != -EIO)
		fprintf(stderr, "%s %s: %s\n", verb, pci, read_strerror(r));
	free(arg.runtime_dir);
	free(arg.state_dir);
	return r < 0 ? 1 : r;
}
