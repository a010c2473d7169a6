/* A program outside the project that uses the installed DPDK layer: the object refuses a port
 * that does not exist (no EAL is started here: nothing else is needed to link and run it). */
#include <errno.h>
#include <inetcsum_dpdk.h>
#include <rte_errno.h>
#include <stdio.h>

int main(void)
{
    struct inetcsum_dpdk_tx *tx = inetcsum_dpdk_tx_new(0, 0, NULL);
    printf("inetcsum_dpdk: port 0 without an EAL: %s (rte_errno %d)\n", tx ? "made" : "refused", rte_errno);
    inetcsum_dpdk_tx_free(tx);
    return tx == NULL && rte_errno == ENODEV ? 0 : 1;
}
