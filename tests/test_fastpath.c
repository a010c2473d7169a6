/* The common-case shortcut (lib/packet/fast.h) against the general walk it stands in for: on
 * frames of the shape it takes, and on the same frames with their headers damaged, cut short or
 * given another wire length (where it must either decline or still agree), inetcsum_verify,
 * inetcsum_fill and inetcsum_offload must give the general walk's return value, report and written
 * bytes, for every flag combination and random offload capabilities.  It must also take every well-formed common frame: otherwise the comparison
 * would pass with the shortcut never used.  The fragment shortcut (lib/packet/fast_fragment.h) the
 * same way, through the plain entry points and the described ones the capture library uses: their
 * reports, written bytes and fragment against the general walk's and inetcsum_fragment's, on
 * fragments built whole, cut and damaged (and on the common frames, which those also take). */
#include <stdlib.h>
#include <string.h>

#include "inetcsum_packet.h"
#include "packet/fast.h"
#include "packet/fast_fragment.h"
#include "packet/general.h"
#include "testutil.h"

#define MAX_FRAME 1700

struct built {
    uint8_t b[MAX_FRAME];
    size_t len;
    enum inetcsum_link link;
    int common; /* the shortcut must take it */
};

static void put16(uint8_t *p, size_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* A port, now and then one the walk goes beyond on (a UDP tunnel, sFlow; OpenFlow over TCP): the
 * shortcut must leave those to the walk. */
static unsigned port(void)
{
    static const unsigned named[] = {4754, 4789, 6081, 3544, 2152, 6343, 6653, 6633};
    if (tu_rand() % 8 == 0)
        return named[tu_rand() % (sizeof named / sizeof named[0])];
    return 1 + (unsigned)(tu_rand() % 65535);
}

/* Ethernet (0-2 VLAN tags) or raw IP; IPv4 or IPv6; TCP or UDP; checksums right, wrong, zero or
 * partial as they come out of the random bytes or fill. */
static void build(struct built *f)
{
    int v6 = (int)(tu_rand() & 1), tcp = (int)(tu_rand() & 1), tunnel = 0;
    size_t payload = (size_t)(tu_rand() % (tu_rand() & 1 ? 64 : 1400));
    size_t l4len = (tcp ? 20 : 8) + payload, iplen = (v6 ? 40 : 20) + l4len, off = 0;
    static const enum inetcsum_link links[] = {INETCSUM_LINK_ETHERNET, INETCSUM_LINK_ETHERNET, INETCSUM_LINK_RAW,
                                               INETCSUM_LINK_IPV4, INETCSUM_LINK_IPV6};
    f->link = links[tu_rand() % 5];
    if (f->link == INETCSUM_LINK_IPV4 || f->link == INETCSUM_LINK_IPV6)
        f->link = v6 ? INETCSUM_LINK_IPV6 : INETCSUM_LINK_IPV4;
    tu_fill_random(f->b, sizeof f->b);
    if (f->link == INETCSUM_LINK_ETHERNET) {
        off = 12;
        for (unsigned tags = (unsigned)(tu_rand() % 3); tags > 0; tags--) {
            static const unsigned tpids[] = {0x8100, 0x88A8, 0x9100, 0x9200}; /* every TPID the walk knows */
            put16(f->b + off, tpids[tu_rand() % 4]);
            off += 4;
        }
        put16(f->b + off, v6 ? 0x86DD : 0x0800);
        off += 2;
    }
    uint8_t *ip = f->b + off;
    if (v6) {
        ip[0] = (uint8_t)(0x60 | (ip[0] & 15));
        put16(ip + 4, l4len);
        ip[6] = tcp ? 6 : 17;
    } else {
        ip[0] = 0x45;
        put16(ip + 2, iplen);
        put16(ip + 6, tu_rand() & 1 ? 0x4000 : 0); /* DF or nothing */
        ip[9] = tcp ? 6 : 17;
    }
    uint8_t *l4 = ip + (v6 ? 40 : 20);
    const unsigned sport = port(), dport = port();
    put16(l4, sport);
    put16(l4 + 2, dport);
    if (!tcp) {
        put16(l4 + 4, l4len);
        tunnel = ics_follow_udp(sport, dport) != ICS_H_STOP;
    } else {
        tunnel = ics_follow_tcp(sport, dport) != ICS_H_STOP;
    }
    f->len = off + iplen;
    if (f->link == INETCSUM_LINK_ETHERNET && tu_rand() % 4 == 0)
        f->len += tu_rand() % 20; /* Ethernet padding or a trailer after the IP datagram */
    switch (tu_rand() % 4) {
    case 0:
        inetcsum_fill(f->b, f->len, 0, f->link, 0, NULL); /* all good */
        break;
    case 1:
        memset(l4 + (tcp ? 16 : 6), 0, 2); /* UDP "none" (IPv4) or illegal (IPv6); TCP bad */
        break;
    default:
        break; /* as random: bad, or now and then partial or good by chance */
    }
    f->common = !tunnel;
}

/* An IPv4 (no options) or IPv6 (fragment header first) fragment behind the same links: first or
 * later, carrying TCP, UDP, ICMP(v6) or now and then a protocol or extension header the shortcut
 * leaves to the walk; a first fragment's UDP length its own, the datagram's, less, or too short. */
static void build_fragment(struct built *f)
{
    const int v6 = (int)(tu_rand() & 1), first = (int)(tu_rand() & 1);
    static const uint8_t protos[] = {6, 17, 17, 1, 58, 6, 132, 47, 4, 41, 60, 0, 136, 2};
    const uint8_t proto = tu_rand() % 3 ? protos[tu_rand() % 5] : protos[tu_rand() % sizeof protos];
    size_t data = (size_t)(tu_rand() % (tu_rand() & 1 ? 48 : 1400)), off = 0;
    static const enum inetcsum_link links[] = {INETCSUM_LINK_ETHERNET, INETCSUM_LINK_ETHERNET, INETCSUM_LINK_RAW,
                                               INETCSUM_LINK_IPV4};
    f->link = links[tu_rand() % 4];
    if (f->link == INETCSUM_LINK_IPV4 && v6)
        f->link = INETCSUM_LINK_IPV6;
    tu_fill_random(f->b, sizeof f->b);
    if (f->link == INETCSUM_LINK_ETHERNET) {
        off = 12;
        for (unsigned tags = (unsigned)(tu_rand() % 3); tags > 0; tags--) {
            put16(f->b + off, 0x8100);
            off += 4;
        }
        put16(f->b + off, v6 ? 0x86DD : 0x0800);
        off += 2;
    }
    uint8_t *ip = f->b + off;
    const unsigned more = first || tu_rand() % 2, at8 = first ? 0 : 1 + (unsigned)(tu_rand() % 0x1FFF);
    size_t hl;
    if (v6) {
        hl = 48;
        ip[0] = (uint8_t)(0x60 | (ip[0] & 15));
        put16(ip + 4, 8 + data);
        ip[6] = 44;
        ip[40] = proto;
        put16(ip + 42, at8 << 3 | more);
    } else {
        hl = 20;
        ip[0] = 0x45;
        put16(ip + 2, 20 + data);
        put16(ip + 6, at8 | (more ? 0x2000 : 0));
        ip[9] = proto;
    }
    uint8_t *l4 = ip + hl;
    if (first && proto == 17 && data >= 8) {
        const size_t picks[] = {data, tu_rand() % 8, data + 1 + tu_rand() % 3000, 8 + tu_rand() % (data - 7)};
        put16(l4 + 4, picks[tu_rand() % 4]); /* the fragment's, too short, the datagram's, or less */
        if (tu_rand() % 4 == 0)
            memset(l4 + 6, 0, 2); /* UDP "none" (IPv4) or illegal (IPv6) */
    }
    f->len = off + hl + data;
    if (f->link == INETCSUM_LINK_ETHERNET && tu_rand() % 4 == 0)
        f->len += tu_rand() % 20;
    if (!v6 && tu_rand() % 2)
        inetcsum_fill(f->b, f->len, 0, f->link, 0, NULL); /* the IPv4 header right */
    const int l4_ok = proto == 6 ? data >= 20 : proto == 17 ? data >= 8 && ics_get16(l4 + 4) >= 8
                                                : proto == 1 || proto == 58 ? data >= 4 : 0;
    f->common = !first || l4_ok;
}

static const unsigned flag_sets[] = {0, INETCSUM_UDP6_ZERO_OK, INETCSUM_FILL_ALL, INETCSUM_FILL_UDP_ZERO,
                                     INETCSUM_FILL_ALL | INETCSUM_FILL_UDP_ZERO | INETCSUM_UDP6_ZERO_OK};

static unsigned long shortcut_taken, compared;

/* The public entry points (shortcut when it applies) against the general walk, on len bytes of f
 * (a buffer of exactly that size, so that ASan sees any read past it). */
static void agree(const uint8_t *frame, size_t len, size_t wirelen, enum inetcsum_link link, const char *what)
{
    uint8_t *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
    struct ics_fast fr;
    shortcut_taken += (unsigned long)ics_fast_recognise(frame, len, wirelen, link, &fr);
    for (size_t k = 0; k < sizeof flag_sets / sizeof flag_sets[0]; k++) {
        unsigned flags = flag_sets[k];
        struct inetcsum_report ra, rb;
        memcpy(a, frame, len);
        unsigned pa = inetcsum_verify(a, len, wirelen, link, flags, &ra);
        unsigned pb = ics_verify_general(a, len, wirelen, link, flags, &rb);
        CHECK(pa == pb && tu_same_report(&ra, &rb), "%s: verify (flags 0x%x) differs from the general walk: %u/%u "
              "problems, %u/%u checks, frame flags 0x%x/0x%x", what, flags, pa, pb, ra.count, rb.count, ra.flags,
              rb.flags);
        memcpy(b, frame, len);
        unsigned wa = inetcsum_fill(a, len, wirelen, link, flags, &ra);
        unsigned wb = ics_fill_general(b, len, wirelen, link, flags, &rb);
        CHECK(wa == wb && tu_same_report(&ra, &rb) && memcmp(a, b, len) == 0,
              "%s: fill (flags 0x%x) differs from the general walk: %u/%u written", what, flags, wa, wb);
        compared++;
    }
    /* Offload with a random request, device and seed style (wirelen is not an offload argument). */
    if (wirelen == 0) {
        struct inetcsum_offload o = {(uint32_t)tu_rand() & 0xFFFF, (uint32_t)tu_rand() & 0xFFFF,
                                     (unsigned)(tu_rand() & 1)};
        if (tu_rand() & 1)
            o.request = INETCSUM_OFL_ALL;
        struct inetcsum_report ra, rb;
        memcpy(a, frame, len);
        memcpy(b, frame, len);
        uint32_t sa = inetcsum_offload(a, len, link, &o, &ra);
        uint32_t sb = ics_offload_general(b, len, link, &o, &rb);
        CHECK(sa == sb && tu_same_report(&ra, &rb) && memcmp(a, b, len) == 0,
              "%s: offload (request 0x%x, device 0x%x, flags %u) differs from the general walk: 0x%x/0x%x", what,
              o.request, o.device, o.flags, sa, sb);
        /* Without a report, verdicts of items left to the device are skipped: the same bytes and
         * the same kinds must come out. */
        memcpy(b, frame, len);
        uint32_t sn = inetcsum_offload(b, len, link, &o, NULL);
        CHECK(sn == sa && memcmp(a, b, len) == 0, "%s: offload without a report (request 0x%x, device 0x%x) "
              "differs from offload with one: 0x%x/0x%x", what, o.request, o.device, sn, sa);
        memcpy(b, frame, len);
        sn = ics_offload_general(b, len, link, &o, NULL);
        CHECK(sn == sa && memcmp(a, b, len) == 0, "%s: the general walk's offload without a report (request 0x%x, "
              "device 0x%x) differs from offload with one: 0x%x/0x%x", what, o.request, o.device, sn, sa);
    }
    free(a);
    free(b);
}

static unsigned long fragment_taken;

/* The described entry points (both shortcuts, then the walk) against the general walk and
 * inetcsum_fragment, every flag set, all layers and a random choice of them. */
static void agree_described(const uint8_t *frame, size_t len, size_t wirelen, enum inetcsum_link link,
                            const char *what)
{
    uint8_t *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
    struct ics_fast_fragment ff;
    struct inetcsum_fragment fa, fb;
    fragment_taken += (unsigned long)ics_fast_fragment_recognise(frame, len, wirelen, link, &ff, &fa);
    const int want = inetcsum_fragment(frame, len, wirelen, link, &fb);
    for (size_t k = 0; k < sizeof flag_sets / sizeof flag_sets[0]; k++) {
        const unsigned flags = flag_sets[k];
        const uint32_t layers = k % 2 ? INETCSUM_LAYERS_ALL : (uint32_t)tu_rand() & INETCSUM_LAYERS_ALL;
        struct inetcsum_report ra, rb;
        int found = 7;
        memcpy(a, frame, len);
        unsigned pa = ics_verify_described(a, len, wirelen, link, flags, &ra, &fa, &found);
        unsigned pb = ics_verify_general(a, len, wirelen, link, flags, &rb);
        CHECK(pa == pb && tu_same_report(&ra, &rb), "%s: described verify (flags 0x%x) differs from the general "
              "walk: %u/%u problems, %u/%u checks, frame flags 0x%x/0x%x", what, flags, pa, pb, ra.count, rb.count,
              ra.flags, rb.flags);
        CHECK(found == want && (want == 0 || memcmp(&fa, &fb, sizeof fa) == 0),
              "%s: described verify's fragment differs from inetcsum_fragment's (%d/%d)", what, found, want);
        memcpy(b, frame, len);
        found = 7;
        unsigned wa = ics_fill_layers_described(a, len, wirelen, link, flags, layers, &ra, &fa, &found);
        unsigned wb = ics_fill_layers_general(b, len, wirelen, link, flags, layers, &rb);
        CHECK(wa == wb && tu_same_report(&ra, &rb) && memcmp(a, b, len) == 0,
              "%s: described fill (flags 0x%x, layers 0x%x) differs from the general walk: %u/%u written", what,
              flags, layers, wa, wb);
        CHECK(found == want && (want == 0 || memcmp(&fa, &fb, sizeof fa) == 0),
              "%s: described fill's fragment differs from inetcsum_fragment's (%d/%d)", what, found, want);
    }
    free(a);
    free(b);
}

/* One header byte of the first 80 set to a random value, or to one of those that steer the
 * shortcut's decisions. */
static void damage(uint8_t *p, size_t len)
{
    static const uint8_t steering[] = {0x00, 0x01, 0x06, 0x11, 0x20, 0x3F, 0x40, 0x45, 0x46, 0x4F,
                                       0x60, 0x81, 0x86, 0x88, 0xA8, 0xDD, 0x08, 0x12, 0xFF, 0x2B};
    size_t at = (size_t)(tu_rand() % (len < 80 ? len : 80));
    p[at] = tu_rand() & 1 ? (uint8_t)tu_rand() : steering[tu_rand() % sizeof steering];
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_fastpath");
    unsigned rounds = tu_quick ? 3000 : 20000;
    unsigned long common = 0, common_missed = 0;
    struct built f, g;
    for (unsigned i = 0; i < rounds; i++) {
        build(&f);
        struct ics_fast fr;
        if (f.common) {
            common++;
            if (!ics_fast_recognise(f.b, f.len, 0, f.link, &fr)) {
                common_missed++;
                CHECK(0, "round %u: a common frame (%zu bytes, link %d) was not taken", i, f.len, (int)f.link);
            }
        }
        agree(f.b, f.len, 0, f.link, "as built");
        agree(f.b, f.len, f.len, f.link, "wire length given");
        agree(f.b, f.len, f.len + 1 + tu_rand() % 100, f.link, "captured short of the wire");
        size_t cut = (size_t)(tu_rand() % (f.len + 1));
        agree(f.b, cut, 0, f.link, "cut");
        for (int d = 0; d < 4; d++) {
            g = f;
            for (int n = 1 + (int)(tu_rand() % 2); n > 0; n--)
                damage(g.b, g.len);
            agree(g.b, g.len, 0, g.link, "damaged");
        }
    }
    unsigned long fragments = 0, fragments_missed = 0;
    for (unsigned i = 0; i < rounds; i++) {
        build_fragment(&f);
        struct ics_fast_fragment ff;
        struct inetcsum_fragment desc;
        if (f.common) {
            fragments++;
            if (!ics_fast_fragment_recognise(f.b, f.len, 0, f.link, &ff, &desc)) {
                fragments_missed++;
                CHECK(0, "round %u: a fragment the shortcut takes (%zu bytes, link %d) was not taken", i, f.len,
                      (int)f.link);
            }
        }
        agree_described(f.b, f.len, 0, f.link, "fragment as built");
        agree(f.b, f.len, 0, f.link, "fragment through the plain entry points");
        agree_described(f.b, f.len, f.len + 1 + tu_rand() % 100, f.link, "fragment captured short of the wire");
        agree_described(f.b, (size_t)(tu_rand() % (f.len + 1)), 0, f.link, "fragment cut");
        for (int d = 0; d < 4; d++) {
            g = f;
            for (int n = 1 + (int)(tu_rand() % 2); n > 0; n--)
                damage(g.b, g.len);
            agree_described(g.b, g.len, 0, g.link, "fragment damaged");
            if (d == 0)
                agree(g.b, g.len, 0, g.link, "fragment damaged, plain entry points");
        }
        if (i % 4 == 0) { /* the common frames through the described entry points too */
            build(&g);
            agree_described(g.b, g.len, 0, g.link, "common frame described");
        }
    }
    printf("  fragments: shortcut taken in %lu described comparisons; %lu takeable built, %lu missed\n",
           fragment_taken, fragments, fragments_missed);
    CHECK(fragments > rounds / 3 && fragments_missed == 0, "the fragment shortcut must take every fragment it can");
    printf("  %lu comparisons, shortcut taken in %lu of %lu frames; %lu common frames built, %lu missed\n",
           compared, shortcut_taken, compared / (sizeof flag_sets / sizeof flag_sets[0]), common, common_missed);
    CHECK(common > rounds / 2 && common_missed == 0, "the shortcut must take every common frame");
    return tu_finish();
}
