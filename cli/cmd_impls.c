/* inetcsum impls: the checksum and CRC32c kernels this build has, which this CPU runs, which are
 * in use, and which kernel sums each size. */
#include <string.h>

#include "cli.h"
#include "inetcsum.h"
#include "inetcsum_proto.h"
#include "registry.h"

/* One family's kernels, best first, each marked as runnable here and in use. */
static void list(const char *title, size_t (*built_list)(const char **, size_t),
                 size_t (*usable_list)(const char **, size_t), const char *active)
{
    enum { MAX = 32 };
    const char *built[MAX], *usable[MAX];
    size_t nb = built_list(built, MAX), nu = usable_list(usable, MAX);
    if (nb > MAX)
        nb = MAX;
    if (nu > MAX)
        nu = MAX;
    int width = 15; /* the names in one column, however long the longest */
    for (size_t i = 0; i < nb; i++)
        if ((int)strlen(built[i]) > width)
            width = (int)strlen(built[i]);
    printf("%s, best first:\n", title);
    for (size_t i = 0; i < nb; i++) {
        int runs = 0;
        for (size_t j = 0; j < nu; j++)
            runs |= strcmp(built[i], usable[j]) == 0;
        printf("  %-*s %s%s\n", width, built[i], runs ? "runs on this CPU" : "built, not supported by this CPU",
               strcmp(built[i], active) == 0 ? ", in use" : "");
    }
}

int cmd_impls(int argc, char **argv)
{
    static const char help[] =
        "usage: inetcsum impls\n\nLists the checksum kernels built, best first, whether this CPU runs them, and the\n"
        "one in use (INETCSUM_IMPL=name selects another); which kernel sums each size (a tuning\n"
        "row for this CPU model may pick other kernels for some sizes); then the CRC32c kernels\n"
        "(INETCSUM_CRC32C_IMPL=name selects one).\n";
    if (argc > 1) {
        const int asked = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        if (!asked)
            cli_error("impls: takes no argument ('%s' given)", argv[1]);
        return cli_usage(help, asked);
    }
    list("checksum kernels", inetcsum_impl_list_built, inetcsum_impl_list, inetcsum_impl_name());
    /* What sums each size now: the tuning row's choices, or the one kernel at every size. */
    printf("kernel by size: inline scalar code");
    const char *prev = "inline";
    size_t from = 0; /* where prev starts: the search below never looks before it */
    for (size_t len = 16; len <= ((size_t)1 << 30);) {
        if (strcmp(prev, inetcsum_impl_name_at(len)) == 0) {
            len *= 2;
            continue;
        }
        /* The first size within (len / 2, len] that another kernel sums: a row's inline bound
         * need not be a power of two (Zen 5's is 65 B), and a step can begin and end between two
         * powers (Zen 4's inline code to 64 B, then one kernel to 127 B), so the name printed is
         * the one at that size, and the same interval is looked at again from there (from it: the
         * search needs prev's kernel at lo). */
        size_t lo = len / 2 > from ? len / 2 : from, at = len;
        while (at - lo > 1) {
            const size_t mid = lo + (at - lo) / 2;
            if (strcmp(inetcsum_impl_name_at(mid), prev) == 0)
                lo = mid;
            else
                at = mid;
        }
        prev = inetcsum_impl_name_at(at);
        from = at;
        const int mib = at >= 1u << 20 && at % (1u << 20) == 0, kib = !mib && at >= 1024 && at % 1024 == 0;
        printf(" below %zu %s, %s", mib ? at >> 20 : kib ? at >> 10 : at, mib ? "MiB" : kib ? "KiB" : "B", prev);
    }
    printf(" from there\n");
    /* Where that comes from: the row for this CPU model, the default for its features, or none. */
    const struct ics_tuning *row = ics_tuning_row();
    if (!ics_tuning_in_use())
        printf("tuning row: not in use (%s chosen)\n", inetcsum_impl_name());
    else if (row == NULL)
        printf("tuning row: none for this CPU (the registry's order)\n");
    else
        printf("tuning row: %s%s; measured: %s\n", ics_tuning_is_default(row) ? "none for this CPU model, so the " : "", row->cpu,
               row->measured);
    list("crc32c kernels", inetcsum_crc32c_impl_list_built, inetcsum_crc32c_impl_list, inetcsum_crc32c_impl_name());
    return EXIT_ALL_GOOD;
}
