/* A program outside the project that uses the installed AF_XDP layer: it asks the kernel what the
 * loopback device can do (no socket, no root), and a TX object over a UMEM of its own computes a
 * frame's checksums (software only: no socket to send through). */
#include <inetcsum_xsk.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    struct inetcsum_xsk_caps caps;
    const int rc = inetcsum_xsk_caps_get(if_nametoindex("lo"), -1, &caps);
    uint8_t *umem = aligned_alloc(4096, 4096);
    memset(umem, 0, 4096);
    /* Ethernet, IPv4 (20 bytes, total length 28), UDP (8 bytes, checksum 0x1234: wrong). */
    static const uint8_t frame[42] = {[12] = 0x08, [14] = 0x45, [17] = 28, [22] = 64, [23] = 17, [26] = 10,
                                      [29] = 1,    [30] = 10,   [33] = 2,  [35] = 7,  [37] = 9,  [39] = 8,
                                      [40] = 0x12, [41] = 0x34};
    memcpy(umem, frame, sizeof frame);
    const struct inetcsum_xsk_tx_conf conf = {.ifindex = if_nametoindex("lo"), .xsk_fd = -1, .umem_area = umem,
                                              .umem_size = 4096, .frame_size = 4096, .mtu = 1500,
                                              .flags = INETCSUM_XSK_SOFTWARE};
    struct inetcsum_xsk_tx *tx = inetcsum_xsk_tx_new(&conf);
    struct xdp_desc d = {0, sizeof frame, 0};
    const long sw = tx ? inetcsum_xsk_tx_prepare(tx, &d, INETCSUM_OFL_ALL, NULL) : -1;
    const unsigned problems = inetcsum_verify(umem, sizeof frame, 0, INETCSUM_LINK_ETHERNET, 0, NULL);
    printf("inetcsum_xsk: lo asked (%d); one frame prepared in software (kinds 0x%lx), %u problems left\n", rc, sw,
           problems);
    inetcsum_xsk_tx_free(tx);
    free(umem);
    return rc == 0 && sw > 0 && problems == 0 ? 0 : 1;
}
