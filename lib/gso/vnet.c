/* The virtio-net header: ten bytes, twelve in the v1 form, 24 in the UDP-tunnel form, little-endian
 * as virtio 1.0 lays them out (include/uapi/linux/virtio_net.h: flags, gso_type, hdr_len,
 * gso_size, csum_start, csum_offset; num_buffers; hash_value and hash_report, which a TUN device
 * leaves 0; outer_th_offset, inner_nh_offset). */
#include <errno.h>
#include <string.h>

#include "inetcsum_gso.h"

static uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static int known_size(size_t size)
{
    return size == INETCSUM_VNET_HDR_LEN || size == INETCSUM_VNET_HDR_V1_LEN || size == INETCSUM_VNET_HDR_TNL_LEN;
}

int inetcsum_vnet_get(struct inetcsum_vnet_hdr *h, const void *buf, size_t size)
{
    if (!known_size(size))
        return -EINVAL;
    const uint8_t *p = buf;
    h->flags = p[0];
    h->gso_type = p[1];
    h->hdr_len = get_le16(p + 2);
    h->gso_size = get_le16(p + 4);
    h->csum_start = get_le16(p + 6);
    h->csum_offset = get_le16(p + 8);
    h->num_buffers = size > INETCSUM_VNET_HDR_LEN ? get_le16(p + 10) : 0;
    h->outer_th_offset = size == INETCSUM_VNET_HDR_TNL_LEN ? get_le16(p + 20) : 0;
    h->inner_nh_offset = size == INETCSUM_VNET_HDR_TNL_LEN ? get_le16(p + 22) : 0;
    return 0;
}

int inetcsum_vnet_put(void *buf, size_t size, const struct inetcsum_vnet_hdr *h)
{
    if (!known_size(size))
        return -EINVAL;
    uint8_t *p = buf;
    p[0] = h->flags;
    p[1] = h->gso_type;
    put_le16(p + 2, h->hdr_len);
    put_le16(p + 4, h->gso_size);
    put_le16(p + 6, h->csum_start);
    put_le16(p + 8, h->csum_offset);
    if (size > INETCSUM_VNET_HDR_LEN)
        put_le16(p + 10, h->num_buffers);
    if (size == INETCSUM_VNET_HDR_TNL_LEN) {
        memset(p + 12, 0, 8); /* hash_value, hash_report, padding */
        put_le16(p + 20, h->outer_th_offset);
        put_le16(p + 22, h->inner_nh_offset);
    }
    return 0;
}
