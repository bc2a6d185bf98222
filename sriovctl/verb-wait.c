/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The boot gate: returns once every PF that a layout selects has a status
 * record from this boot. A PF whose driver or netdev has not appeared yet,
 * and that a layout may come to select (layout_set_may_select), is waited
 * for too: early in boot, igb may not even be loaded. Woken by inotify on
 * the records directory (the apply units write records with rename()) and
 * by udev events (drivers binding, netdevs appearing), bounded by --timeout.
 * What only sriov-persistd would apply or repair (drift under [Drift]
 * Mode=repair, an edited layout, the rest of an apply a firmware VF limit
 * waited for) is waited for while one manages the host read here, asked
 * once on the bus (ctl_drain_daemon()); with none, it is done and not
 * applied at once. */

#include <libudev.h>
#include <poll.h>
#include <sys/inotify.h>

#include "desired.h"
#include "match.h"
#include "report-edited.h"
#include "report-gone.h"
#include "report.h"
#include "sriovctl.h"

struct progress {
	/* rebooting: applied, and only a reboot brings the rest (a raised
	 * firmware VF limit): done, and no failure, as status says pending */
	size_t configured, done, applied, rebooting;
	/* "PCI (not applied in this boot yet)", "PCI (no driver yet)", "PCI
	 * (waiting for another tool ...)" */
	char **missing;
	/* done, and not applied: "PCI (name): held: reason", "PCI (name):
	 * failed: reason" ... */
	char **not_applied;
	/* applied, pending a reboot: "PCI (name): reason" */
	char **reboot;
	/* PFs applied in this boot that are no longer on the host: said, never
	 * counted as applied nor waited for ("PCI (name): recorded ...") */
	char **gone;
	usec_t since;
	/* when this pass began to read the host: a record that an apply
	 * finished since may be of a host this read saw mid-apply */
	usec_t read_at;
	/* ctl_drain_daemon(), asked once at the start: whether a sriov-persistd
	 * manages the host read here (1), none does (0), not known (-1) */
	int daemon;
};

static int note_gone(const struct pf_status *st, void *userdata)
{
	struct progress *p = userdata;
	_cleanup_free_ char *why = NULL, *who = NULL;

	if (st->finished < p->since)
		return 0;
	why = report_gone_reason(st);
	who = pf_names_describe(st->pci, st->name);
	if (!why || !who)
		return -ENOMEM;
	return strv_consume(&p->gone, strdup_printf("%s: %s", who, why));
}

static int note_missing(struct progress *p, const struct pf_view *pv)
{
	const struct pf_state *pf = pv->pf;

	if (pv->desired && pv->plan && pv->plan->waiting[0])
		return strv_consume(&p->missing,
				    strdup_printf("%s (%s)", pf->pci, pv->plan->waiting[0]));
	if (pv->desired && pf->driver)
		return strv_consume(&p->missing,
				    strdup_printf("%s (not applied in this boot yet)", pf->pci));
	return strv_consume(&p->missing,
			    strdup_printf("%s (%s)", pf->pci,
					  pf->driver ? "no netdev yet" : "no driver yet"));
}

/* Why a PF with a record is not done yet: VFs that another tool is expected
 * to create are missing (ExternallyManaged=yes), or they appeared after the
 * record was written (or were made anew) and are not configured yet.
 * NULL: done. */
static const char *still_waiting(const struct pf_view *pv, const struct pf_status *st)
{
	if (pv->plan && pv->plan->waiting[0])
		return pv->plan->waiting[0];
	if (st->waiting[0] && pv->plan && pv->plan->n_actions > 0)
		return "VFs that another tool created are not configured yet";
	if (pv->desired && pv->plan)
		return plan_external_vfs_unconfigured(pv->plan, pv->desired);
	return NULL;
}

/* Done and not applied: "PCI (name): held: reason". */
static int note_not_applied(struct progress *p, const struct pf_state *pf, const char *state,
			    const char *why)
{
	_cleanup_free_ char *who = pf_describe(pf);

	p->done++;
	if (!who)
		return -ENOMEM;
	return strv_consume(&p->not_applied, strdup_printf("%s: %s: %s", who, state, strna(why)));
}

/* Done and not applied, as no sriov-persistd runs to apply what status's
 * reason why says will be: "no sriov-persistd runs to apply it" put before
 * "; sriovctl apply PCI" in why (after it when it is not there, with that
 * command). */
static int note_no_daemon(const struct host_view *v, const struct pf_view *pv, const char *state,
			  const char *why, struct progress *p)
{
	_cleanup_free_ char *cmd = strdup_printf("; sriovctl%s apply %s", strempty(v->ctl_options),
						 pv->pf->pci),
			    *said = NULL;
	const char *at = cmd ? strstr(why, cmd) : NULL;

	if (!cmd)
		return -ENOMEM;
	if (at)
		said = strdup_printf("%.*s; no sriov-persistd runs to apply it%s", (int)(at - why),
				     why, at);
	else
		said = strdup_printf("%s; no sriov-persistd runs to apply it%s applies it", why,
				     cmd);
	if (!said)
		return -ENOMEM;
	return note_not_applied(p, pv->pf, state, said);
}

/* Drift, while the daemon that manages the host runs: when the daemon says
 * the PF is pending (it came back while the daemon ran, which only the
 * daemon knows: its apply unit applies it, not a repair), waited for with
 * the daemon's reason; 1 then, 0 when it says otherwise or does not
 * answer. -ENOMEM. */
static int note_daemon_pending(const struct pf_view *pv, struct progress *p)
{
	_cleanup_free_ char *dstate = NULL, *derror = NULL;
	int r;

	if (p->daemon <= 0)
		return 0;
	if (ctl_daemon_pf_state(pv->pf->pci, &dstate, &derror) < 0)
		return -ENOMEM;
	if (!dstate || !streq(dstate, "pending"))
		return 0;
	r = strv_consume(&p->missing,
			 strdup_printf("%s (pending in sriov-persistd: %s)", pv->pf->pci,
				       derror && *derror ? derror : "(no reason given)"));
	return r < 0 ? r : 1;
}

/* Of a PF whose record says applied (or degraded) while the host does not
 * have what its layouts want (its plan has actions left), as status says it
 * (report_applied_differs()): still waited for when something will apply
 * it, the rest of an apply a firmware VF limit waited for (the daemon
 * applies it), a PF that came back (its apply unit), one whose layouts
 * changed since its last apply (report_layouts_changed(): the daemon's
 * reload applies it in either [Drift] Mode=, drift and all), drift that
 * Mode=repair repairs; done and not applied when nothing will, drift kept
 * by Mode=report ("drifted: differs: 4 VFs wanted, 0 present; not
 * repaired ..."), what the daemon would apply or repair while none manages
 * the host ("...; no sriov-persistd runs to repair it; sriovctl apply PCI
 * repairs it"), else as its record says. */
static int note_differs(const struct host_view *v, const struct pf_view *pv,
			const struct pf_status *st, struct progress *p)
{
	_cleanup_free_ char *why = NULL;
	const char *state;
	int edited, r;

	/* the apply finished after the host was read, which may have seen it
	 * halfway (VF driver autoprobe still off): judged on the next pass,
	 * which the record's write wakes */
	if (st->finished >= p->read_at)
		return strv_consume(&p->missing,
				    strdup_printf("%s (its apply finished while the host was read)",
						  pv->pf->pci));
	if (report_applied_differs(v, pv, st, v->ctl_options, &state, &why) < 0)
		return -ENOMEM;
	if (!state)
		return note_not_applied(p, pv->pf, strna(pf_status_state_to_string(st->state)),
					st->error);
	/* its apply unit applies a PF that came back, daemon or not */
	if (streq(state, "pending") && p->daemon == 0 && !pv->returned)
		return note_no_daemon(v, pv, state, why, p);
	if (streq(state, "pending"))
		return strv_consume(&p->missing, strdup_printf("%s (%s)", pv->pf->pci, why));
	edited = report_layouts_changed(v, pv, st);
	if (edited == -ENOMEM)
		return edited;
	if (edited > 0 && p->daemon == 0)
		return note_no_daemon(v, pv, state, why, p);
	if (edited > 0)
		return strv_consume(
			&p->missing,
			strdup_printf("%s (its layout changed since its last apply, not "
				      "applied yet; sriov-persistd applies it at its "
				      "reload (or its start); sriovctl%s apply %s "
				      "applies it now)",
				      pv->pf->pci, strempty(v->ctl_options), pv->pf->pci));
	if (!v->set->drift_report_at[0] && p->daemon == 0) {
		if (report_drift_unrepaired(v->set, pv->plan, v->ctl_options, &why) < 0)
			return -ENOMEM;
		return note_not_applied(p, pv->pf, state, why);
	}
	/* one that came back is its apply unit's, not drift: as the daemon
	 * says it, in either drift mode */
	r = note_daemon_pending(pv, p);
	if (r != 0)
		return r < 0 ? r : 0;
	if (!v->set->drift_report_at[0])
		return strv_consume(
			&p->missing,
			strdup_printf("%s (drifted from its layouts since its last apply; "
				      "sriov-persistd repairs it)",
				      pv->pf->pci));
	/* drift that [Drift] Mode=report keeps: done and not applied */
	return note_not_applied(p, pv->pf, state, why);
}

/* Done, and pending since what held or deferred its last apply (rec's, a
 * reset's too) no longer does: as note_not_applied() says it, with the
 * command that runs it below, as status says it. */
static int note_pending(struct ctl *c, struct progress *p, const struct pf_state *pf,
			const struct pf_status *rec, const char *why)
{
	_cleanup_free_ char *who = pf_describe(pf), *hint = status_run_hint(c, pf->pci, rec->reset);

	p->done++;
	if (!who || !hint)
		return -ENOMEM;
	return strv_consume(&p->not_applied,
			    strdup_printf("%s: pending: %s\n    %s", who, why, hint));
}

/* Applied, and done: pending a reboot when only one brings the rest, as
 * status says it. */
static int note_applied(struct progress *p, const struct pf_view *pv)
{
	_cleanup_strv_free_ char **waits = NULL;
	_cleanup_free_ char *who = NULL, *why = NULL;

	p->done++;
	/* what the apply did that waits for a reboot, not what a plan needs */
	if (pv->plan && plan_reboot_reasons_waited(pv->plan, &waits) < 0)
		return -ENOMEM;
	if (!pv->plan || pv->plan->n_actions > 0 || !waits[0]) {
		p->applied++;
		return 0;
	}
	p->rebooting++;
	who = pf_describe(pv->pf);
	why = strv_join(waits, "; ");
	if (!who || !why)
		return -ENOMEM;
	return strv_consume(&p->reboot, strdup_printf("%s: %s", who, why));
}

/* A PF that a layout selects: done when the files hold it now (an apply
 * holds it too: nothing will change before they are edited, whatever an
 * earlier apply recorded), or when its record is from this boot and,
 * applied, it waits for nothing more (failed, deferred, degraded are done:
 * wait fails at once). So is one whose record says held while the files
 * hold it no more, or deferred by a policy that lets it run now: said
 * pending, as status says it, not held or deferred. */
static int note_record(struct ctl *c, usec_t since, const struct host_view *v,
		       const struct pf_view *pv, struct progress *p)
{
	_cleanup_free_ char *lifted = NULL, *hold_lifted = NULL;
	const char *why = NULL;
	struct pf_status st;
	int r = 0;

	if (pv->desired->held)
		return note_not_applied(p, pv->pf, "held", pv->desired->held_reason);
	/* no driver (yet): the apply unit runs when it binds, whatever an
	 * earlier apply recorded */
	if (!pv->pf->driver || pf_status_read(c->runtime_dir, pv->pf->pci, &st) < 0)
		return note_missing(p, pv);
	if (report_deferral_lifted(v->set, &st, c->local_options, &lifted) < 0 ||
	    report_hold_lifted(pv, &st, c->local_options, &hold_lifted) < 0) {
		pf_status_done(&st);
		return -ENOMEM;
	}
	if (st.finished < since)
		r = note_missing(p, pv);
	else if (hold_lifted)
		/* what held it is fixed now (the files hold it no more): done
		 * as the record is, but said as it is now */
		r = note_pending(c, p, pv->pf, &st, hold_lifted);
	else if (lifted)
		/* the policy that deferred it lets it run now */
		r = note_pending(c, p, pv->pf, &st, lifted);
	else if (st.state == PF_STATUS_APPLIED && (why = still_waiting(pv, &st)))
		r = strv_consume(&p->missing, strdup_printf("%s (%s)", pv->pf->pci, why));
	else if ((st.state == PF_STATUS_APPLIED || st.state == PF_STATUS_DEGRADED) && pv->plan &&
		 pv->plan->n_actions > 0)
		/* the host is not as its layouts want: not applied, as status says */
		r = note_differs(v, pv, &st, p);
	else if (st.state == PF_STATUS_APPLIED)
		r = note_applied(p, pv);
	else if (st.state == PF_STATUS_DEFERRED && pv->plan && pv->plan->n_actions == 0)
		/* the deferred change made by hand since: applied, as status says */
		r = note_applied(p, pv);
	else
		r = note_not_applied(p, pv->pf, strna(pf_status_state_to_string(st.state)),
				     st.error);
	pf_status_done(&st);
	return r;
}

static void progress_done(struct progress *p)
{
	p->missing = strv_free(p->missing);
	p->not_applied = strv_free(p->not_applied);
	p->reboot = strv_free(p->reboot);
	p->gone = strv_free(p->gone);
}

static int check_records(struct ctl *c, usec_t since, int daemon, struct progress *ret)
{
	struct progress p = { .missing = calloc(1, sizeof(char *)),
			      .since = since,
			      .daemon = daemon };
	struct ctl_view cv;
	int r = 0;

	if (!p.missing)
		return -ENOMEM;
	p.read_at = now_realtime();
	if (ctl_host_view(c, &cv) < 0) {
		strv_free(p.missing);
		return -EIO;
	}
	for (size_t i = 0; r >= 0 && i < cv.v.n_pfs; i++) {
		const struct pf_view *pv = &cv.v.pfs[i];
		bool unsettled = !pv->pf->driver || !pv->pf->name;

		if (!pv->desired &&
		    !(unsettled && layout_set_may_select(cv.set, pv->pf, cv.hs->hostname)))
			continue;
		p.configured++;
		/* its reboot reasons as status says them (the card raise it waits for) */
		if (pv->plan && pv->desired &&
		    report_card_limit_said(c->runtime_dir, cv.hs, pv->pf,
					   pf_desired_num_vfs(pv->desired, pv->pf),
					   &pv->plan->reboot_reasons) < 0)
			r = -ENOMEM;
		else
			r = pv->desired ? note_record(c, since, &cv.v, pv, &p) :
					  note_missing(&p, pv);
	}
	if (r >= 0)
		r = report_gone_each(cv.hs, c->runtime_dir, note_gone, &p);
	ctl_view_done(&cv);
	if (r < 0) {
		progress_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

static int watch_records(const char *runtime_dir)
{
	_cleanup_free_ char *dir = strdup_printf("%s/pf", runtime_dir);
	int fd, r;

	if (!dir)
		return -ENOMEM;
	r = mkdir_p(dir, 0755);
	if (r < 0)
		return r;
	fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (inotify_add_watch(fd, dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* udev events of PCI functions and netdevs (the real host only). */
static struct udev_monitor *watch_udev(struct udev *udev)
{
	struct udev_monitor *m = udev ? udev_monitor_new_from_netlink(udev, "udev") : NULL;

	if (!m)
		return NULL;
	if (udev_monitor_filter_add_match_subsystem_devtype(m, "pci", NULL) < 0 ||
	    udev_monitor_filter_add_match_subsystem_devtype(m, "net", NULL) < 0 ||
	    udev_monitor_enable_receiving(m) < 0)
		return udev_monitor_unref(m);
	return m;
}

static void drain(int fd, struct udev_monitor *m)
{
	char buf[4096];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	for (struct udev_device *d; m && (d = udev_monitor_receive_device(m));)
		udev_device_unref(d);
}

static int wait_loop(struct ctl *c, int fd, struct udev_monitor *m, struct progress *ret)
{
	usec_t deadline = now_monotonic() + c->timeout, since = boot_start_realtime(), left;
	/* asked once: drift and a layout's edit are waited for while a daemon
	 * runs to repair and apply them (not at boot: it starts after the gate) */
	int daemon = ctl_drain_daemon(c);
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = m ? udev_monitor_get_fd(m) : -1, .events = POLLIN },
	};

	for (;;) {
		usec_t now = now_monotonic();

		/* Read the state after draining the events, so that none is lost. */
		drain(fd, m);
		if (check_records(c, since, daemon, ret) < 0)
			return -EIO;
		if (ret->done == ret->configured || now >= deadline)
			return 0;
		progress_done(ret);
		/* at most an hour per poll: a --timeout of weeks is no int of milliseconds */
		left = deadline - now;
		if (left > USEC_PER_HOUR)
			left = USEC_PER_HOUR;
		if (poll(pfd, 2, (int)((left + USEC_PER_MSEC - 1) / USEC_PER_MSEC)) < 0 &&
		    errno != EINTR) {
			fprintf(stderr, "Waiting failed: %m\n");
			return -errno;
		}
	}
}

int verb_wait(struct ctl *c)
{
	_cleanup_close_ int fd = -EBADF;
	struct udev *udev = NULL;
	struct udev_monitor *m = NULL;
	struct progress p;
	int r;

	fd = watch_records(c->runtime_dir);
	if (fd < 0) {
		fprintf(stderr, "Watching %s/pf failed: %s\n", c->runtime_dir, strerror(-fd));
		return EXIT_FAIL;
	}
	if (!c->host_path) {
		udev = udev_new();
		m = watch_udev(udev);
		if (!m)
			fprintf(stderr, "Watching udev events failed; waking on records only\n");
	}
	r = wait_loop(c, fd, m, &p);
	udev_monitor_unref(m);
	udev_unref(udev);
	if (r < 0)
		return EXIT_FAIL;
	if (p.done < p.configured)
		printf("Timed out after %llus; not applied yet:\n",
		       (unsigned long long)(c->timeout / USEC_PER_SEC));
	else if (p.rebooting > 0)
		printf("%zu configured PF(s): %zu applied, %zu pending a reboot, %zu not (see "
		       "sriovctl status)\n",
		       p.configured, p.applied, p.rebooting,
		       p.configured - p.applied - p.rebooting);
	else
		printf("%zu configured PF(s): %zu applied, %zu not (see sriovctl status)\n",
		       p.configured, p.applied, p.configured - p.applied);
	for (char **n = p.missing; p.done < p.configured && n && *n; n++)
		printf("Not applied yet: %s\n", *n);
	for (char **n = p.reboot; n && *n; n++)
		printf("Pending a reboot: %s\n", *n);
	for (char **n = p.not_applied; n && *n; n++)
		printf("Not applied: %s\n", *n);
	/* a hot-unplugged NIC must not hold the boot gate: said, not waited for */
	for (char **g = p.gone; g && *g; g++)
		printf("Gone, not waited for: %s\n", *g);
	progress_done(&p);
	/* a reboot is for the operator to schedule: it never holds the boot gate */
	return p.done == p.configured && p.applied + p.rebooting == p.configured ? EXIT_OK :
										   EXIT_FAIL;
}
