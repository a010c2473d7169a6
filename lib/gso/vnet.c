/* The virtio-net header: ten bytes, twelve in the v1 form, 24 in the UDP-tunnel form, little-endian
 * as virtio 1.0 lays them out (include/uapi/linux/virtio_net.h: flags, gso_type, hdr_len,
 * gso_size, csum_start, csum_offset; num_buffers; hash_value and hash_report, which a TUN device
 * leaves 0; outer_th_offset, inner_nh_offset). */
#include <errno.h>
#include <string.h>

#include "inetcsum_gso.h"
#include "wire/bytes.h"

/* Field offsets (struct virtio_net_hdr_v1_hash_tunnel). */
enum {
    VNET_FLAGS = 0,
    VNET_GSO_TYPE = 1,
    VNET_HDR_LEN = 2,
    VNET_GSO_SIZE = 4,
    VNET_CSUM_START = 6,
    VNET_CSUM_OFFSET = 8,
    VNET_NUM_BUFFERS = 10,
    VNET_HASH = 12, /* hash_value, hash_report, padding: 8 bytes */
    VNET_OUTER_TH = 20,
    VNET_INNER_NH = 22,
};

static int known_size(size_t size)
{
    return size == INETCSUM_VNET_HDR_LEN || size == INETCSUM_VNET_HDR_V1_LEN || size == INETCSUM_VNET_HDR_TNL_LEN;
}

int inetcsum_vnet_get(struct inetcsum_vnet_hdr *h, const void *buf, size_t size)
{
    if (!known_size(size))
        return -EINVAL;
    const uint8_t *p = buf;
    h->flags = p[VNET_FLAGS];
    h->gso_type = p[VNET_GSO_TYPE];
    h->hdr_len = (uint16_t)ics_get_le16(p + VNET_HDR_LEN);
    h->gso_size = (uint16_t)ics_get_le16(p + VNET_GSO_SIZE);
    h->csum_start = (uint16_t)ics_get_le16(p + VNET_CSUM_START);
    h->csum_offset = (uint16_t)ics_get_le16(p + VNET_CSUM_OFFSET);
    h->num_buffers = size > INETCSUM_VNET_HDR_LEN ? (uint16_t)ics_get_le16(p + VNET_NUM_BUFFERS) : 0;
    h->outer_th_offset = size == INETCSUM_VNET_HDR_TNL_LEN ? (uint16_t)ics_get_le16(p + VNET_OUTER_TH) : 0;
    h->inner_nh_offset = size == INETCSUM_VNET_HDR_TNL_LEN ? (uint16_t)ics_get_le16(p + VNET_INNER_NH) : 0;
    return 0;
}

int inetcsum_vnet_put(void *buf, size_t size, const struct inetcsum_vnet_hdr *h)
{
    if (!known_size(size))
        return -EINVAL;
    uint8_t *p = buf;
    p[VNET_FLAGS] = h->flags;
    p[VNET_GSO_TYPE] = h->gso_type;
    ics_put_le16(p + VNET_HDR_LEN, h->hdr_len);
    ics_put_le16(p + VNET_GSO_SIZE, h->gso_size);
    ics_put_le16(p + VNET_CSUM_START, h->csum_start);
    ics_put_le16(p + VNET_CSUM_OFFSET, h->csum_offset);
    if (size > INETCSUM_VNET_HDR_LEN)
        ics_put_le16(p + VNET_NUM_BUFFERS, h->num_buffers);
    if (size == INETCSUM_VNET_HDR_TNL_LEN) {
        memset(p + VNET_HASH, 0, VNET_OUTER_TH - VNET_HASH); /* hash_value, hash_report, padding */
        ics_put_le16(p + VNET_OUTER_TH, h->outer_th_offset);
        ics_put_le16(p + VNET_INNER_NH, h->inner_nh_offset);
    }
    return 0;
}
