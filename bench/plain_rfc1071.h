/* The checksums of an Ethernet/IPv4/TCP frame by the loop of RFC 1071 section 4.1 as a user writes
 * it first (16-bit words into a 32-bit sum, end-around carry, the complement): `bench xsk`'s
 * contender for the software path.  One body, compiled twice (plain_rfc1071_o2.c, _o3.c): at -O2
 * gcc leaves the loop scalar, at -O3 it vectorizes it, and users build both ways. */
#ifndef ICS_BENCH_PLAIN_RFC1071_H
#define ICS_BENCH_PLAIN_RFC1071_H

#include <stddef.h>
#include <stdint.h>

void bench_plain_checksums_o2(uint8_t *frame, size_t len);
void bench_plain_checksums_o3(uint8_t *frame, size_t len);

/* The body, for the two files that compile it. */
#define ICS_PLAIN_RFC1071_BODY(name)                                                                   \
    static uint16_t rfc1071(const uint8_t *p, size_t n, uint32_t sum)                                  \
    {                                                                                                  \
        while (n > 1) {                                                                                \
            sum += (uint32_t)p[0] << 8 | p[1];                                                         \
            p += 2;                                                                                    \
            n -= 2;                                                                                    \
        }                                                                                              \
        if (n)                                                                                         \
            sum += (uint32_t)p[0] << 8;                                                                \
        while (sum >> 16)                                                                              \
            sum = (sum & 0xFFFF) + (sum >> 16);                                                        \
        return (uint16_t)~sum;                                                                         \
    }                                                                                                  \
    void name(uint8_t *f, size_t len)                                                                  \
    {                                                                                                  \
        uint8_t *ip = f + 14, *tcp = ip + 20;                                                          \
        ip[10] = ip[11] = 0;                                                                           \
        const uint16_t h = rfc1071(ip, 20, 0);                                                         \
        ip[10] = (uint8_t)(h >> 8);                                                                    \
        ip[11] = (uint8_t)h;                                                                           \
        const size_t tlen = len - 34;                                                                  \
        uint32_t pseudo = 6 + (uint32_t)tlen;                                                          \
        for (int i = 12; i < 20; i += 2)                                                               \
            pseudo += (uint32_t)ip[i] << 8 | ip[i + 1];                                                \
        tcp[16] = tcp[17] = 0;                                                                         \
        const uint16_t t = rfc1071(tcp, tlen, pseudo);                                                 \
        tcp[16] = (uint8_t)(t >> 8);                                                                   \
        tcp[17] = (uint8_t)t;                                                                          \
    }

#endif
