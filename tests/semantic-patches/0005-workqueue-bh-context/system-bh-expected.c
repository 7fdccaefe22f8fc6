// Test input for 0005-workqueue-bh-context, shaped like 7.3's
// drivers/net/wireless/ath/ath12k/pci.c: a copy engine's interrupt work
// queued on the system's BH workqueue, another work item on the system's
// ordinary one.
#include <linux/interrupt.h>
#include <linux/workqueue.h>

struct ce_pipe {
	struct work_struct intr_wq;
	struct work_struct other;
	int pending;
};

irqreturn_t ce_interrupt_handler(int irq, void *arg);
void ce_pipe_init(struct ce_pipe *ce_pipe);

static void ce_workqueue_in_bh(struct work_struct *work)
{
	struct ce_pipe *ce_pipe = container_of(work, struct ce_pipe, intr_wq);

	ce_pipe->pending = 0;
}

static void ce_workqueue(struct work_struct *work)
{
	retrofi_bh_work_begin();
	ce_workqueue_in_bh(work);
	retrofi_bh_work_end();
}

static void ce_other(struct work_struct *work)
{
	struct ce_pipe *ce_pipe = container_of(work, struct ce_pipe, other);

	ce_pipe->pending++;
}

irqreturn_t ce_interrupt_handler(int irq, void *arg)
{
	struct ce_pipe *ce_pipe = arg;

	queue_work(system_bh_wq, &ce_pipe->intr_wq);
	queue_work(system_percpu_wq, &ce_pipe->other);
	return IRQ_HANDLED;
}

void ce_pipe_init(struct ce_pipe *ce_pipe)
{
	INIT_WORK(&ce_pipe->intr_wq, ce_workqueue);
	INIT_WORK(&ce_pipe->other, ce_other);
}
