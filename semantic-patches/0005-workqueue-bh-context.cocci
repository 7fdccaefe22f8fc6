// retrofi rule 0005-workqueue-bh-context
// must-match: no
//   (only the vendor drivers' USB glue, rtw88_usb and rtw89_usb, and
//   ath12k's PCI glue queue work on a BH workqueue; a source without them
//   has nothing to match)
// upstream: "workqueue: Implement BH workqueues to eventually replace
//   tasklets" (v6.9) added WQ_BH: a workqueue whose work items run in
//   softirq context, on the CPU that queued them. rtw88's and rtw89's USB
//   glue receive on one ("wifi: rtw88: usb: ..." and rtw89's USB support
//   allocate their rx workqueue with WQ_BH | WQ_PERCPU). The same change
//   added the system's BH workqueue, system_bh_wq, on which ath12k
//   queues its copy-engine interrupt work.
// targets: kernels without WQ_BH (6.1, 5.10); decided in
//   <linux/workqueue.h> by the probe WQ_BH (compat/probes.list), where
//   system_bh_wq is system_highpri_wq (per-CPU) without it
// why: a header can make WQ_BH 0 (an ordinary per-CPU workqueue), but then
//   the work runs in process context with bottom halves enabled, where the
//   driver's code expects softirq context (a spin_lock() shared with the
//   USB completion handlers, mac80211's receive path). The context is the
//   work function's, which no header reaches: each function that a
//   WQ_BH workqueue runs keeps its body under a new name, and a wrapper of
//   the old name runs it between retrofi_bh_work_begin() and
//   retrofi_bh_work_end() (<linux/workqueue.h>: local_bh_disable() and
//   local_bh_enable() where WQ_BH is 0, nothing where the kernel has it),
//   so INIT_WORK() and every other user of the name get the wrapper.
//   Work queued on system_bh_wq gets the same wrapper (the rules qs, is
//   and wraps: SmPL cannot join two rules' bindings into one).

// A workqueue allocated with WQ_BH among its flags ...
@bh@
expression wq, name;
@@
wq = alloc_workqueue(name, <+... WQ_BH ...+>, ...)

// ... the work items queued on it ...
@q@
expression bh.wq, w;
@@
queue_work(wq, &w)

// ... and the functions those work items were initialised with.
@i depends on q@
expression q.w;
identifier fn;
@@
INIT_WORK(&w, fn)

@wrap depends on i@
identifier i.fn, work;
fresh identifier body = fn ## "_in_bh";
@@
 static void
-fn
+body
 (struct work_struct *work)
 {
 ...
 }
+
+static void fn(struct work_struct *work)
+{
+	retrofi_bh_work_begin();
+	body(work);
+	retrofi_bh_work_end();
+}

// Work items queued on the system's BH workqueue ...
@qs@
symbol system_bh_wq;
expression w;
@@
queue_work(system_bh_wq, &w)

// ... and the functions they were initialised with (a function also
// queued on an allocated BH workqueue would be wrapped twice, and its
// second body's name would clash with the first: a compile error).
@is depends on qs@
expression qs.w;
identifier fn;
@@
INIT_WORK(&w, fn)

@wraps depends on is@
identifier is.fn, work;
fresh identifier body = fn ## "_in_bh";
@@
 static void
-fn
+body
 (struct work_struct *work)
 {
 ...
 }
+
+static void fn(struct work_struct *work)
+{
+	retrofi_bh_work_begin();
+	body(work);
+	retrofi_bh_work_end();
+}
