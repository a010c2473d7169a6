/* --only and --skip: the checksum layers verify judges and fix writes, named as the JSON names
 * them (the table of layers, inetcsum_layer_from_name). */
#include <stdio.h>
#include <string.h>

#include "choose.h"
#include "cli.h"
#include "inetcsum_packet.h"

int choose_layers(struct layer_choice *ch, const char *cmd, const char *opt, const char *list)
{
    const int only = strcmp(opt, "--only") == 0;
    if ((only && ch->skip) || (!only && ch->only)) {
        cli_error("%s: --only and --skip do not go together (--only names what is judged)", cmd);
        return -1;
    }
    uint32_t *set = only ? &ch->only : &ch->skip;
    const char *p = list;
    do {
        const char *comma = strchr(p, ',');
        const size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char name[32];
        int layer = -1;
        if (n && n < sizeof name) {
            memcpy(name, p, n);
            name[n] = '\0';
            layer = inetcsum_layer_from_name(name);
        }
        if (layer < 0) {
            cli_error("%s: %s %s: '%.*s' is not a layer; the layers: %s", cmd, opt, list, (int)n, p,
                      choose_layer_names());
            return -1;
        }
        *set |= INETCSUM_LAYER_BIT(layer);
        p = comma ? comma + 1 : NULL;
    } while (p);
    if (ch->skip == INETCSUM_LAYERS_ALL) {
        cli_error("%s: --skip %s leaves no layer to judge", cmd, list);
        return -1;
    }
    return 0;
}

uint32_t choose_mask(const struct layer_choice *ch)
{
    if (ch->only)
        return ch->only;
    return ch->skip ? INETCSUM_LAYERS_ALL & ~ch->skip : 0;
}

const char *choose_layer_names(void)
{
    static char names[256];
    if (!names[0]) {
        size_t at = 0;
        for (int l = 0; l < INETCSUM_LAYER_COUNT && at < sizeof names; l++)
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", l ? "," : "",
                                   inetcsum_layer_name((enum inetcsum_layer)l));
    }
    return names;
}
