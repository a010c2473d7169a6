/* A program outside the project that uses the installed library. */
#include <inetcsum.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    /* RFC 1071 section 3: words 0001 f203 f4f5 f6f7 sum to ddf2 (network order). */
    const unsigned char words[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    uint16_t sum = inetcsum_fold(inetcsum_partial(words, sizeof words, 0));
    unsigned char wire[2];
    memcpy(wire, &sum, 2);
    printf("%s: %02x%02x via %s\n", inetcsum_version(), wire[0], wire[1], inetcsum_impl_name());
    return wire[0] == 0xdd && wire[1] == 0xf2 ? 0 : 1;
}
