/* What the device and the kernel can do for an AF_XDP socket (inetcsum_xsk_caps_get): the netdev
 * generic netlink family's xsk-features, the kernel's TX metadata, the socket's bind mode.
 *
 * Netlink by hand: one request and one reply, about 100 lines.  libbpf 1.1 (Debian 12's) reads
 * no xsk-features (later libbpfs read xdp-features only), and libnl-genl would be a dependency for
 * a single message. */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

#define NL_ALIGN(n) (((n) + 3u) & ~3u)

struct nl_req {
    struct nlmsghdr nh;
    struct genlmsghdr gh;
    uint8_t attrs[64];
};

/* Appends an attribute of type with len bytes of data to r. */
static void put_attr(struct nl_req *r, unsigned type, const void *data, size_t len)
{
    struct nlattr *a = (struct nlattr *)((uint8_t *)r + NL_ALIGN(r->nh.nlmsg_len));
    a->nla_type = (uint16_t)type;
    a->nla_len = (uint16_t)(NLA_HDRLEN + len);
    memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
    r->nh.nlmsg_len = NL_ALIGN(r->nh.nlmsg_len) + NL_ALIGN(a->nla_len);
}

/* Sends r on fd and reads its reply into buf; the reply's attributes (after the genetlink header):
 * their start, *len their length.  NULL with *err the errno the kernel answered (or ours). */
static const uint8_t *transact(int fd, struct nl_req *r, uint8_t *buf, size_t cap, size_t *len, int *err)
{
    static unsigned seq;
    r->nh.nlmsg_seq = ++seq;
    r->nh.nlmsg_flags = NLM_F_REQUEST; /* (no ACK asked: an error comes as the reply itself) */
    if (send(fd, r, r->nh.nlmsg_len, 0) < 0) {
        *err = errno;
        return NULL;
    }
    ssize_t got;
    const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;
    do { /* (a late message of an earlier request is passed over) */
        got = recv(fd, buf, cap, 0);
        if (got < (ssize_t)sizeof(struct nlmsghdr)) {
            *err = got < 0 ? errno : EIO;
            return NULL;
        }
    } while (nh->nlmsg_seq != r->nh.nlmsg_seq);
    if (nh->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr *e = NLMSG_DATA(nh);
        *err = e->error ? -e->error : EIO;
        return NULL;
    }
    if (!NLMSG_OK(nh, (size_t)got) || nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) {
        *err = EIO;
        return NULL;
    }
    *len = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
    return (const uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN;
}

/* The attribute of type in attrs[0..len), its payload and *plen its length; NULL when absent. */
static const uint8_t *find_attr(const uint8_t *attrs, size_t len, unsigned type, size_t *plen)
{
    for (size_t at = 0; at + NLA_HDRLEN <= len;) {
        const struct nlattr *a = (const struct nlattr *)(attrs + at);
        if (a->nla_len < NLA_HDRLEN || at + a->nla_len > len)
            return NULL;
        if ((a->nla_type & NLA_TYPE_MASK) == type) {
            *plen = a->nla_len - NLA_HDRLEN;
            return attrs + at + NLA_HDRLEN;
        }
        at += NL_ALIGN(a->nla_len);
    }
    return NULL;
}

/* The xsk-features of the device at ifindex: 0 and *features, or an errno (ENOENT: the kernel has
 * no netdev family; ENODEV: no such device). */
static int xsk_features(unsigned ifindex, uint64_t *features, int *reported)
{
    *features = 0;
    *reported = 0;
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd < 0)
        return errno;
    const struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv); /* (never blocks a program for long) */
    uint8_t buf[8192];
    size_t len;
    int err = 0;
    struct nl_req r = {.nh = {.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN), .nlmsg_type = GENL_ID_CTRL},
                       .gh = {.cmd = CTRL_CMD_GETFAMILY, .version = 1}};
    put_attr(&r, CTRL_ATTR_FAMILY_NAME, ICS_NETDEV_FAMILY_NAME, sizeof ICS_NETDEV_FAMILY_NAME);
    const uint8_t *attrs = transact(fd, &r, buf, sizeof buf, &len, &err);
    size_t plen;
    const uint8_t *id = attrs ? find_attr(attrs, len, CTRL_ATTR_FAMILY_ID, &plen) : NULL;
    if (!id || plen < 2) {
        close(fd);
        return err ? err : EIO;
    }
    uint16_t family;
    memcpy(&family, id, 2);
    r = (struct nl_req){.nh = {.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN), .nlmsg_type = family},
                        .gh = {.cmd = ICS_NETDEV_CMD_DEV_GET, .version = 1}};
    const uint32_t index = ifindex;
    put_attr(&r, ICS_NETDEV_A_DEV_IFINDEX, &index, sizeof index);
    attrs = transact(fd, &r, buf, sizeof buf, &len, &err);
    close(fd);
    if (!attrs)
        return err;
    const uint8_t *f = find_attr(attrs, len, ICS_NETDEV_A_DEV_XSK_FEATURES, &plen);
    if (f && plen == 8) {
        memcpy(features, f, 8);
        *reported = 1;
    }
    return 0;
}

/* Linux's version as three numbers: TX metadata came in 6.8. */
static int kernel_at_least(unsigned major, unsigned minor)
{
    struct utsname u;
    unsigned a = 0, b = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &a, &b) != 2)
        return 0;
    return a > major || (a == major && b >= minor);
}

int inetcsum_xsk_caps_get(unsigned ifindex, int xsk_fd, struct inetcsum_xsk_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    char name[IF_NAMESIZE];
    if (!if_indextoname(ifindex, name))
        return -ENODEV;
    const int err = xsk_features(ifindex, &caps->xsk_features, &caps->xsk_features_known);
    if (err == ENODEV)
        return -ENODEV;
    /* The attribute came with the metadata (6.8); a kernel that does not report it may still be
     * one that takes metadata, when its version says so. */
    caps->kernel_tx_metadata = caps->xsk_features_known || kernel_at_least(6, 8);
    caps->zero_copy = -1;
    if (xsk_fd >= 0) {
        struct xdp_options opts = {0};
        socklen_t optlen = sizeof opts;
        if (getsockopt(xsk_fd, SOL_XDP, XDP_OPTIONS, &opts, &optlen) != 0)
            return -errno;
        caps->zero_copy = (opts.flags & XDP_OPTIONS_ZEROCOPY) != 0;
    }
    return 0;
}
