// Test input for 0109-qmi-elem-info-const, shaped like 7.3's
// drivers/net/wireless/ath/ath11k/qmi.c: an element table with a nested
// one, a message handler, and a request sent with a table.
#include <linux/soc/qcom/qmi.h>
#include <linux/stddef.h>

struct t_req {
	u8 valid;
	u32 mode;
};

struct t_resp {
	struct qmi_response_type_v01 resp;
};

static const struct qmi_elem_info t_req_ei[] = {
	{
		.data_type	= QMI_OPT_FLAG,
		.elem_len	= 1,
		.elem_size	= sizeof(u8),
		.array_type	= NO_ARRAY,
		.tlv_type	= 0x10,
		.offset		= offsetof(struct t_req, valid),
	},
	{
		.data_type	= QMI_UNSIGNED_4_BYTE,
		.elem_len	= 1,
		.elem_size	= sizeof(u32),
		.array_type	= NO_ARRAY,
		.tlv_type	= 0x10,
		.offset		= offsetof(struct t_req, mode),
	},
	{
		.data_type	= QMI_EOTI,
		.array_type	= NO_ARRAY,
		.tlv_type	= QMI_COMMON_TLV_TYPE,
	},
};

static const struct qmi_elem_info t_resp_ei[] = {
	{
		.data_type	= QMI_STRUCT,
		.elem_len	= 1,
		.elem_size	= sizeof(struct qmi_response_type_v01),
		.array_type	= NO_ARRAY,
		.tlv_type	= 0x02,
		.offset		= offsetof(struct t_resp, resp),
		.ei_array	= qmi_response_type_v01_ei,
	},
	{
		.data_type	= QMI_EOTI,
		.array_type	= NO_ARRAY,
		.tlv_type	= QMI_COMMON_TLV_TYPE,
	},
};

static void t_ind_cb(struct qmi_handle *qmi, struct sockaddr_qrtr *sq,
		     struct qmi_txn *txn, const void *data)
{
}

static const struct qmi_msg_handler t_handlers[] = {
	{
		.type = QMI_INDICATION,
		.msg_id = 0x21,
		.ei = t_resp_ei,
		.decoded_size = sizeof(struct t_resp),
		.fn = t_ind_cb,
	},
	{}
};

int t_send(struct qmi_handle *qmi, struct sockaddr_qrtr *sq, struct t_req *req);

int t_send(struct qmi_handle *qmi, struct sockaddr_qrtr *sq, struct t_req *req)
{
	struct t_resp resp = {};
	struct qmi_txn txn;
	int ret;

	if (!t_handlers[0].fn)
		return -EINVAL;
	ret = qmi_txn_init(qmi, &txn, t_resp_ei, &resp);
	if (ret < 0)
		return ret;
	ret = qmi_send_request(qmi, sq, &txn, 0x20, 16, t_req_ei, req);
	if (ret < 0) {
		qmi_txn_cancel(&txn);
		return ret;
	}
	return qmi_txn_wait(&txn, HZ);
}
