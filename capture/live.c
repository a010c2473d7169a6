/* A live interface through AF_PACKET's TPACKET_V3 ring (live.h).  The kernel fills blocks of
 * frames and hands each block over whole; a block is given back once its frames were read.  The
 * filter is tcpdump's language compiled by libpcap (pcap_compile on a dead handle): classic BPF, attached
 * to the socket before it is bound, so no frame gets past it. */
#include "live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/filter.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef ICS_HAVE_PCAP
#include <pcap/pcap.h>
#endif
#ifdef ICS_PCAP_SONAME
#include <dlfcn.h>
#include <pthread.h>
#endif

/* The ring: 8 blocks of 4 MiB (a GSO super-packet of 64 KiB fits many times), handed over when
 * full or after 50 ms, so that a quiet interface's frames are not held back long. */
enum { LIVE_BLOCK = 4u << 20, LIVE_BLOCKS = 8, LIVE_FRAME = 1u << 11, LIVE_RETIRE_MS = 50 };

enum { LINKTYPE_ETHERNET = 1, LINKTYPE_RAW = 101 };

int live_has_filters(void)
{
#ifdef ICS_HAVE_PCAP
    return 1;
#else
    return 0;
#endif
}

static int fail(struct live *l, const char *what, const char *iface)
{
    snprintf(l->err, sizeof l->err, "%s: %s: %s%s", iface, what, strerror(errno),
             errno == EPERM ? " (reading an interface needs CAP_NET_RAW: run as root, or give the "
                              "command the capability)"
                            : "");
    return -1;
}

#ifdef ICS_PCAP_SONAME
/* libpcap's five calls the filter needs, from the library loaded the first time a filter is
 * compiled (capture/CMakeLists.txt says why it is not linked); their types are the header's. */
static struct {
    __typeof__(pcap_open_dead) *open_dead;
    __typeof__(pcap_compile) *compile;
    __typeof__(pcap_geterr) *geterr;
    __typeof__(pcap_close) *close;
    __typeof__(pcap_freecode) *freecode;
    char why[200]; /* empty when loaded */
} pcap;
static pthread_once_t pcap_once = PTHREAD_ONCE_INIT;

static void pcap_load(void)
{
    void *lib = dlopen(ICS_PCAP_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(pcap.why, sizeof pcap.why, "%s", dlerror());
        return;
    }
    /* (dlsym's object pointer to a function pointer: POSIX requires this to work) */
    *(void **)&pcap.open_dead = dlsym(lib, "pcap_open_dead");
    *(void **)&pcap.compile = dlsym(lib, "pcap_compile");
    *(void **)&pcap.geterr = dlsym(lib, "pcap_geterr");
    *(void **)&pcap.close = dlsym(lib, "pcap_close");
    *(void **)&pcap.freecode = dlsym(lib, "pcap_freecode");
    if (!pcap.open_dead || !pcap.compile || !pcap.geterr || !pcap.close || !pcap.freecode)
        snprintf(pcap.why, sizeof pcap.why, "%s lacks pcap_compile or its companions", ICS_PCAP_SONAME);
}
/* libpcap's names called through the table above, so attach_filter is one code path linked or loaded */
#define pcap_open_dead pcap.open_dead
#define pcap_compile pcap.compile
#define pcap_geterr pcap.geterr
#define pcap_close pcap.close
#define pcap_freecode pcap.freecode
#endif

/* Attaches filter, compiled for the interface's link type. */
static int attach_filter(struct live *l, const char *iface, const char *filter)
{
#ifdef ICS_HAVE_PCAP
#ifdef ICS_PCAP_SONAME
    pthread_once(&pcap_once, pcap_load);
    if (pcap.why[0]) {
        snprintf(l->err, sizeof l->err, "%s: filters need libpcap, which could not be loaded: %s", iface, pcap.why);
        return -1;
    }
#endif
    struct bpf_program prog;
    pcap_t *dead = pcap_open_dead(l->link == LINKTYPE_RAW ? DLT_RAW : DLT_EN10MB, 262144);
    if (!dead || pcap_compile(dead, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
        snprintf(l->err, sizeof l->err, "%s: the filter '%s' does not compile: %s", iface, filter,
                 dead ? pcap_geterr(dead) : "out of memory");
        if (dead)
            pcap_close(dead);
        return -1;
    }
    pcap_close(dead);
    struct sock_fprog fp = {(unsigned short)prog.bf_len, (struct sock_filter *)prog.bf_insns};
    const int rc = setsockopt(l->fd, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof fp);
    pcap_freecode(&prog);
    return rc == 0 ? 0 : fail(l, "attaching the filter", iface);
#else
    (void)filter;
    snprintf(l->err, sizeof l->err, "%s: filters need libpcap, which this build did not find", iface);
    return -1;
#endif
}

int live_open(struct live *l, const char *iface, const char *filter)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    const unsigned ifindex = if_nametoindex(iface);
    if (!ifindex) {
        snprintf(l->err, sizeof l->err, "%s: no such interface", iface);
        return -1;
    }
    if ((l->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL))) < 0)
        return fail(l, "opening a packet socket", iface);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", iface);
    if (ioctl(l->fd, SIOCGIFHWADDR, &ifr) != 0) {
        fail(l, "its hardware type", iface);
        goto out;
    }
    switch (ifr.ifr_hwaddr.sa_family) {
    case ARPHRD_ETHER:
    case ARPHRD_LOOPBACK: /* (the kernel gives loopback frames an Ethernet header) */
        l->link = LINKTYPE_ETHERNET;
        break;
    case ARPHRD_NONE: /* TUN: IP packets as they are */
        l->link = LINKTYPE_RAW;
        break;
    default:
        snprintf(l->err, sizeof l->err, "%s: hardware type %u is not read live (Ethernet, loopback and TUN are)",
                 iface, (unsigned)ifr.ifr_hwaddr.sa_family);
        goto out;
    }
    if (filter && *filter && attach_filter(l, iface, filter) != 0)
        goto out;
    const int version = TPACKET_V3;
    if (setsockopt(l->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof version) != 0) {
        fail(l, "asking for TPACKET_V3", iface);
        goto out;
    }
    struct tpacket_req3 req = {.tp_block_size = LIVE_BLOCK,
                               .tp_block_nr = LIVE_BLOCKS,
                               .tp_frame_size = LIVE_FRAME,
                               .tp_frame_nr = LIVE_BLOCK / LIVE_FRAME * LIVE_BLOCKS,
                               .tp_retire_blk_tov = LIVE_RETIRE_MS};
    if (setsockopt(l->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0) {
        fail(l, "setting up the ring", iface);
        goto out;
    }
    l->block_size = LIVE_BLOCK;
    l->nblocks = LIVE_BLOCKS;
    l->ring = mmap(NULL, l->block_size * l->nblocks, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0);
    if (l->ring == MAP_FAILED) {
        l->ring = NULL;
        fail(l, "mapping the ring", iface);
        goto out;
    }
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)ifindex};
    if (bind(l->fd, (struct sockaddr *)&sll, sizeof sll) != 0) {
        fail(l, "binding to it", iface);
        goto out;
    }
    return 0;
out:
    live_close(l);
    return -1;
}

int live_next(struct live *l, struct live_frame *f, int timeout_ms)
{
    for (;;) {
        struct tpacket_block_desc *bd = (struct tpacket_block_desc *)(l->ring + (size_t)l->block * l->block_size);
        if (l->left) {
            const struct tpacket3_hdr *h = (const struct tpacket3_hdr *)l->next;
            f->data = (const uint8_t *)h + h->tp_mac;
            f->caplen = h->tp_snaplen;
            f->wirelen = h->tp_len;
            f->time_ns = (int64_t)h->tp_sec * 1000000000 + h->tp_nsec;
            f->offload_pending = (h->tp_status & TP_STATUS_CSUMNOTREADY) != 0;
            f->device_verified = (h->tp_status & TP_STATUS_CSUM_VALID) != 0;
            l->next += h->tp_next_offset;
            l->left--;
            l->frames++;
            return 1;
        }
        if (l->next) { /* the block read: back to the kernel, on to the next */
            __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            l->next = NULL;
            l->block = (l->block + 1) % l->nblocks;
            continue;
        }
        if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
            struct pollfd p = {.fd = l->fd, .events = POLLIN | POLLERR};
            const int got = poll(&p, 1, timeout_ms);
            if (got < 0 && errno != EINTR) {
                snprintf(l->err, sizeof l->err, "reading the interface: %s", strerror(errno));
                return -1;
            }
            if (got <= 0)
                return 0;
            if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
                return 0;
        }
        l->left = bd->hdr.bh1.num_pkts;
        l->next = (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
        if (!l->left) /* (an empty block retired by its timer) */
            continue;
    }
}

void live_close(struct live *l)
{
    if (l->ring)
        munmap(l->ring, l->block_size * l->nblocks);
    if (l->fd >= 0)
        close(l->fd);
    l->ring = NULL;
    l->fd = -1;
}
