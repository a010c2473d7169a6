/* --only and --skip (choose.c): which checksum layers verify judges and fix writes. */
#ifndef ICS_CLI_CHOOSE_H
#define ICS_CLI_CHOOSE_H

#include <stdint.h>

struct layer_choice {
    uint32_t only, skip; /* INETCSUM_LAYER_BIT sets; at most one of them given */
};

/* Adds the comma-separated layer names of `list`, given with opt ("--only" or "--skip"): 0, or -1
 * with the error said (an unknown name, with the names there are; --only with --skip). */
int choose_layers(struct layer_choice *ch, const char *cmd, const char *opt, const char *list);
/* The layers judged: a tally's and inetcsum_fill_layers' set; 0 when every one is. */
uint32_t choose_mask(const struct layer_choice *ch);
/* Every layer's name, comma-separated, for messages and help. */
const char *choose_layer_names(void);

#endif
