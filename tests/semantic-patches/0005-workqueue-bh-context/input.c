// Test input for 0005-workqueue-bh-context, shaped like 7.3's
// drivers/net/wireless/realtek/rtw88/usb.c: two work items on a WQ_BH
// workqueue (one returns early), one on an ordinary workqueue.
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

struct rtw_usb {
	struct workqueue_struct *rxwq, *txwq;
	struct work_struct rx_work, rx_urb_work, tx_work;
	struct sk_buff_head rx_queue;
	int limit;
};

int rtw_usb_init_rx(struct rtw_usb *rtwusb);
void rtw_usb_kick(struct rtw_usb *rtwusb);

static void rtw_usb_rx_handler(struct work_struct *work)
{
	struct rtw_usb *rtwusb = container_of(work, struct rtw_usb, rx_work);
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&rtwusb->rx_queue)))
		kfree_skb(skb);
}

static void rtw_usb_rx_resubmit_work(struct work_struct *work)
{
	struct rtw_usb *rtwusb = container_of(work, struct rtw_usb, rx_urb_work);

	if (!rtwusb->limit)
		return;
	rtwusb->limit--;
}

static void rtw_usb_tx_handler(struct work_struct *work)
{
	struct rtw_usb *rtwusb = container_of(work, struct rtw_usb, tx_work);

	rtwusb->limit++;
}

void rtw_usb_kick(struct rtw_usb *rtwusb)
{
	queue_work(rtwusb->rxwq, &rtwusb->rx_work);
	queue_work(rtwusb->rxwq, &rtwusb->rx_urb_work);
	queue_work(rtwusb->txwq, &rtwusb->tx_work);
}

int rtw_usb_init_rx(struct rtw_usb *rtwusb)
{
	rtwusb->rxwq = alloc_workqueue("rtw88_usb: rx wq", WQ_BH | WQ_PERCPU, 0);
	if (!rtwusb->rxwq)
		return -ENOMEM;
	rtwusb->txwq = alloc_workqueue("rtw88_usb: tx wq", WQ_PERCPU, 0);
	if (!rtwusb->txwq) {
		destroy_workqueue(rtwusb->rxwq);
		return -ENOMEM;
	}
	skb_queue_head_init(&rtwusb->rx_queue);
	INIT_WORK(&rtwusb->rx_work, rtw_usb_rx_handler);
	INIT_WORK(&rtwusb->rx_urb_work, rtw_usb_rx_resubmit_work);
	INIT_WORK(&rtwusb->tx_work, rtw_usb_tx_handler);
	return 0;
}
