/* The outcome of judging or fixing a capture, as every front end reports it: the command's exit
 * statuses (docs/inetcsum.1), the fix engine's result, the Python package's. */
#ifndef ICS_CAPTURE_STATUS_H
#define ICS_CAPTURE_STATUS_H

/* Exit statuses, the same for every subcommand. */
enum {
    EXIT_ALL_GOOD = 0, /* nothing wrong (fix: the output holds no checksum problem it could fix) */
    EXIT_BAD = 1,      /* bad, partial or illegal checksums found (fix: some it could not fix remain) */
    EXIT_USAGE = 2,    /* usage or input error: nothing was judged, or a file could not be read or written */
    EXIT_CUT = 3,      /* a capture ended inside a record: every record before the cut was judged (fix:
                        * written), the cut reported; problems found there do not change it */
};

#endif
