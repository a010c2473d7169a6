/* How the command says things: file names with control characters escaped, errors on one line,
 * the usage block on a usage error (cli.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Writes s[0..n) to out with control characters escaped; backslashes doubled when asked. */
static size_t escape_into(char *out, size_t cap, const char *s, int double_backslashes)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && w + 5 < cap; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t')
            w += (size_t)snprintf(out + w, cap - w, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else if (*p < 0x20 || *p == 0x7F)
            w += (size_t)snprintf(out + w, cap - w, "\\x%02x", *p);
        else if (*p == '\\' && double_backslashes)
            w += (size_t)snprintf(out + w, cap - w, "\\\\");
        else
            out[w++] = (char)*p;
    }
    out[w] = '\0';
    return w;
}

static int has_control(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return 1;
    return 0;
}

const char *cli_name(const char *path)
{
    static _Thread_local char ring[4][4 * 4096 + 8];
    static _Thread_local unsigned next;
    if (!has_control(path))
        return path;
    char *out = ring[next++ % 4];
    escape_into(out, sizeof ring[0], path, 1);
    return out;
}

void cli_error(const char *fmt, ...)
{
    char msg[8192], shown[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    escape_into(shown, sizeof shown, msg, 0);
    fprintf(stderr, "inetcsum: %s\n", shown);
}

int cli_usage(const char *help, int asked)
{
    if (asked) {
        fputs(help, stdout);
        return EXIT_ALL_GOOD;
    }
    /* "usage: inetcsum CMD ...": the whole usage block (its lines up to the first blank one: a
     * command's operands are often on its last line), and the command's name for the hint. */
    const char *eol = strchr(help, '\n'), *block_end = strstr(help, "\n\n"), *name = help + strlen("usage: ");
    if (!block_end)
        block_end = help + strlen(help) - (help[strlen(help) - 1] == '\n');
    const char *name_end = strchr(strchr(name, ' ') + 1, ' '); /* after "inetcsum CMD" */
    if (!name_end || name_end > eol)
        name_end = eol;
    fprintf(stderr, "%.*s\nTry '%.*s --help' for more.\n", (int)(block_end - help), help, (int)(name_end - name),
            name);
    return EXIT_USAGE;
}
