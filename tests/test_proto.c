/* The protocol layer's sums: IPv4 header checksums at every IHL and the pseudo-headers against the
 * reference over explicitly built pseudo-header bytes, with 32-bit lengths and any seed. */
#include <string.h>

#include "inetcsum_packet.h"
#include "inetcsum_proto.h"
#include "proto/layers.h"
#include "testutil.h"

static void put32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void pseudo_headers(void)
{
    const uint32_t fixed_lens[] = {0, 1, 20, 1480, 65535, 65536, 65537, 0x10000FFFu, 0xFFFFFFFFu};
    for (unsigned i = 0; i < (tu_quick ? 2000u : 20000u); i++) {
        uint8_t ph[40] = {0}, addr[32 + 3];
        tu_fill_random(addr, sizeof addr);
        const uint8_t *s = addr + (i % 4), *d = s + 16; /* any alignment */
        uint32_t len = i < 9 * 8 ? fixed_lens[i % 9] : (uint32_t)tu_rand() >> (tu_rand() % 32);
        uint8_t proto = (uint8_t)tu_rand();
        uint32_t seed = i % 5 == 0 ? 0xFFFFFFFFu : (uint32_t)tu_rand();
        /* IPv6 (RFC 8200 8.1): source, destination, 32-bit length, 3 zero bytes, next header. */
        memcpy(ph, s, 16);
        memcpy(ph + 16, d, 16);
        put32be(ph + 32, len);
        ph[39] = proto;
        uint16_t want6 = ref_sum(ph, 40, seed);
        CHECK(inetcsum_fold(inetcsum_pseudo_ipv6(s, d, proto, len, seed)) == want6, "pseudo_ipv6 len %u proto %u",
              len, proto);
        uint16_t magic = inetcsum_ipv6_magic(s, d, len, proto, seed);
        uint16_t field = (uint16_t)~want6;
        CHECK(magic == field, "ipv6_magic len %u", len);
        /* IPv4 (RFC 793/768): source, destination, zero, protocol, length.  A 32-bit length is
         * summed as two 16-bit words like IPv6's, so build it the same way. */
        memset(ph, 0, sizeof ph);
        memcpy(ph, s, 4);
        memcpy(ph + 4, d, 4);
        ph[9] = proto;
        put32be(ph + 12, len);
        uint16_t want4 = ref_sum(ph, 16, seed);
        CHECK(inetcsum_fold(inetcsum_pseudo_ipv4(s, d, proto, len, seed)) == want4, "pseudo_ipv4 len %u proto %u",
              len, proto);
        magic = inetcsum_tcpudp_magic(s, d, len, proto, seed);
        field = (uint16_t)~want4;
        CHECK(magic == field, "tcpudp_magic len %u", len);
    }
}

static void ipv4_headers(void)
{
    uint8_t buf[64 + 8];
    for (unsigned ihl = 5; ihl <= 15; ihl++)
        for (unsigned a = 0; a < 8; a++)
            for (int round = 0; round < 50; round++) {
                uint8_t *h = buf + a;
                tu_fill_random(h, 4 * ihl);
                h[0] = (uint8_t)(0x40 | ihl);
                h[10] = h[11] = 0;
                uint16_t c = inetcsum_ipv4_header(h, ihl);
                uint16_t field = (uint16_t)~ref_sum(h, 4 * ihl, 0);
                CHECK(c == field, "ipv4 header ihl %u align %u", ihl, a);
                memcpy(h + 10, &c, 2); /* host memory order: stored as is */
                CHECK(inetcsum_ipv4_header(h, ihl) == 0, "ipv4 header ihl %u align %u: verifies to 0", ihl, a);
                h[4 * ihl - 1] ^= 0x01;
                CHECK(inetcsum_ipv4_header(h, ihl) != 0, "ipv4 header ihl %u: a flipped bit is caught", ihl);
            }
}

/* The table of layers (lib/proto/layers.c): a row for every layer, names unique and found again
 * by name, the public names the table's, and a field 2 bytes wide or a 4-byte CRC, as the
 * verify, fill and report code all read it. */
static void layer_table(void)
{
    for (int i = 0; i < INETCSUM_LAYER_COUNT; i++) {
        const struct ics_layer *l = &ics_layers[i];
        CHECK(l->name && l->display && l->name[0] && l->display[0], "layer %d has a row", i);
        if (!l->name || !l->display)
            continue;
        CHECK(strcmp(inetcsum_layer_name((enum inetcsum_layer)i), l->name) == 0 &&
                  strcmp(inetcsum_layer_display_name((enum inetcsum_layer)i), l->display) == 0,
              "layer %d: the public names are the table's", i);
        CHECK(inetcsum_layer_from_name(l->name) == i, "layer %s found by its name", l->name);
        CHECK((l->width == 4) == (l->crc != 0) && (l->width == 2 || l->width == 4), "layer %s: width %u, crc %u",
              l->name, l->width, l->crc);
        CHECK(l->trailer || l->field + l->width <= l->min_len, "layer %s: the field lies in the shortest header",
              l->name);
        for (int j = 0; j < i; j++)
            CHECK(!ics_layers[j].name || (strcmp(ics_layers[j].name, l->name) != 0 &&
                                         strcmp(ics_layers[j].display, l->display) != 0),
                  "layers %d and %d named apart", j, i);
        /* inetcsum_check_field says the table's width too */
        struct inetcsum_check c = {.layer = (uint8_t)i, .offset = 10, .length = 40};
        unsigned width = 0;
        const size_t at = inetcsum_check_field(&c, &width);
        CHECK(width == l->width && at == (l->trailer ? 50u : 10u + l->field), "layer %s: check_field %zu/%u", l->name,
              at, width);
    }
    CHECK(strcmp(inetcsum_layer_name(INETCSUM_LAYER_COUNT), "?") == 0 &&
              strcmp(inetcsum_layer_display_name(INETCSUM_LAYER_COUNT), "?") == 0,
          "out of range: ?");
    CHECK(inetcsum_layer_from_name("TCP") == -1 && inetcsum_layer_from_name(NULL) == -1 &&
              inetcsum_layer_from_name("") == -1,
          "from_name: the JSON names only");
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_proto");
    pseudo_headers();
    ipv4_headers();
    layer_table();
    return tu_finish();
}
