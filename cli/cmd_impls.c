/* inetcsum impls: the checksum kernels this build has, which this CPU runs, which one is in use. */
#include <string.h>

#include "cli.h"
#include "inetcsum.h"
#include "inetcsum_proto.h"

int cmd_impls(int argc, char **argv)
{
    static const char help[] = "usage: inetcsum impls\n\nLists the checksum kernels built, best first, whether this "
                               "CPU runs them, and the\none in use (INETCSUM_IMPL=name selects another); which kernel sums each size "
                               "(a tuning\nrow for this CPU model may pick other kernels for some sizes); then the "
                               "CRC32c kernel in use.\n";
    if (argc > 1)
        return cli_usage(help, strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
    const char *built[16], *usable[16];
    size_t nb = inetcsum_impl_list_built(built, 16), nu = inetcsum_impl_list(usable, 16);
    const char *active = inetcsum_impl_name();
    printf("checksum kernels, best first:\n");
    for (size_t i = 0; i < nb && i < 16; i++) {
        int runs = 0;
        for (size_t j = 0; j < nu && j < 16; j++)
            runs |= strcmp(built[i], usable[j]) == 0;
        printf("  %-15s %s%s\n", built[i], runs ? "runs on this CPU" : "built, not supported by this CPU",
               strcmp(built[i], active) == 0 ? ", in use" : "");
    }
    /* What sums each size now: the tuning row's choices, or the one kernel at every size. */
    printf("kernel by size: inline scalar code");
    const char *prev = "inline";
    for (size_t len = 16; len <= ((size_t)1 << 20); len *= 2) {
        const char *k = inetcsum_impl_name_at(len);
        if (strcmp(prev, k) != 0)
            printf(" below %zu B, %s", len, k);
        prev = k;
    }
    printf(" from there\n");
    printf("crc32c kernel in use: %s\n", inetcsum_crc32c_impl_name());
    return EXIT_ALL_GOOD;
}
