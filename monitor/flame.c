/* flame.c - the HTML flame graph writer (see flame.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "idmap.h"

/* The page up to its data, and after it (monitor/flame.html, split at its data by the build:
 * tools/embed.py).  The data is one script statement:
 *   var DATA = {title, subtitle, unit, names: [...], kinds: [a jp_frame_kind per name],
 *               kindTable: [[legend label, hue, saturation] per jp_frame_kind],
 *               root: [name index (-1: all), total, self, [children]]}; */
extern const char jp_flame_page_head[], jp_flame_page_tail[];

/* Each kind's legend label and colour (HSL hue and saturation; OTHER's colour is the page's
 * warm default), in jp_frame_kind's order: a new kind is a row here. */
static const struct {
    const char *label;
    int hue, saturation;
} kind_legend[JP_FRAME_KINDS] = {
    [JP_FRAME_OTHER] = {"other", 0, 0},
    [JP_FRAME_JAVA] = {"Java", 30, 35},
    [JP_FRAME_INTERPRETED] = {"interpreted", 150, 55},
    [JP_FRAME_COMPILED] = {"compiled", 110, 45},
    [JP_FRAME_INLINED] = {"inlined", 180, 45},
    [JP_FRAME_NATIVE] = {"native", 0, 60},
    [JP_FRAME_VM] = {"VM", 55, 45},
    [JP_FRAME_CLASS] = {"allocated class", 210, 60},
    [JP_FRAME_C_CODE] = {"native code (C/C++)", 25, 80},
    [JP_FRAME_THREAD] = {"thread", 270, 25},
    [JP_FRAME_KERNEL] = {"kernel", 345, 65},
};

/* A JavaScript string literal that is also safe inside <script>: '<', '>' and '&' are
 * escaped, as are U+2028 and U+2029 (line terminators in older JavaScript). */
static void write_js_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            fprintf(out, "\\u%04x", p[2] == 0xA8 ? 0x2028 : 0x2029);
            p += 2;
        } else if (*p == '"' || *p == '\\' || *p == '<' || *p == '>' || *p == '&' || *p < 0x20 || *p == 0x7F) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fputc(*p, out);
        }
    }
    fputc('"', out);
}

typedef struct flame_writer {
    FILE *out;
    uint64_t divisor;
    jp_method_namer name;
    jp_method_kinder kind;
    void *context;
    jp_idmap index; /* MethodID -> 1 + its index in the names array */
    size_t names;
    size_t depth;   /* of the node written last */
} flame_writer;

static uint64_t scaled(const flame_writer *w, uint64_t weight)
{
    return (weight + w->divisor / 2) / w->divisor;
}

/* First pass: the names array, one entry per method. */
static int write_name(const jp_tree *tree, const uint32_t *path, size_t depth, void *context)
{
    flame_writer *w = context;
    MethodID method = tree->nodes[path[depth - 1]].method;
    jp_idmap_entry *e = jp_idmap_insert(&w->index, method);
    if (!e)
        return -1;
    if (!e->value) {
        e->value = ++w->names;
        if (w->names > 1)
            fputc(',', w->out);
        write_js_string(w->out, w->name(w->context, method));
    }
    return 0;
}

/* Then the kinds, in the names' order (the index holds each method's place). */
static int write_kinds(FILE *out, const flame_writer *w)
{
    int *kinds = calloc(w->names + 1, sizeof(*kinds));
    if (!kinds)
        return -1;
    for (size_t i = 0; i < w->index.capacity; i++)
        if (w->index.entries[i].key && w->kind)
            kinds[w->index.entries[i].value - 1] = (int)w->kind(w->context, w->index.entries[i].key);
    for (size_t i = 0; i < w->names; i++)
        fprintf(out, "%s%d", i ? "," : "", kinds[i]);
    free(kinds);
    return 0;
}

static void close_nodes(flame_writer *w, size_t count)
{
    for (size_t i = 0; i < count; i++)
        fputs("]]", w->out);
}

/* Second pass: nodes in walk order; a deeper node opens inside the previous one's children. */
static int write_node(const jp_tree *tree, const uint32_t *path, size_t depth, void *context)
{
    flame_writer *w = context;
    const jp_node *n = &tree->nodes[path[depth - 1]];
    if (depth <= w->depth) {
        close_nodes(w, w->depth - depth + 1);
        fputc(',', w->out);
    }
    w->depth = depth;
    jp_idmap_entry *e = jp_idmap_find(&w->index, n->method);
    return fprintf(w->out, "[%zu,%" PRIu64 ",%" PRIu64 ",[", e ? (size_t)e->value - 1 : 0, scaled(w, n->total),
                   scaled(w, n->self)) < 0 ? -1 : 0;
}

int jp_flame_write(FILE *out, const jp_tree *tree, const jp_flame_labels *labels, uint64_t divisor,
                   jp_method_namer name, jp_method_kinder kind, void *context)
{
    flame_writer w = {out, divisor ? divisor : 1, name, kind, context, {0}, 0, 0};
    uint64_t total = 0;
    for (uint32_t c = tree->nodes ? tree->nodes[JP_ROOT].first_child : JP_NO_NODE; c != JP_NO_NODE;
         c = tree->nodes[c].next_sibling)
        total += tree->nodes[c].total;
    fputs(jp_flame_page_head, out);
    fputs("{\"title\":", out);
    write_js_string(out, labels->title);
    fputs(",\"subtitle\":", out);
    write_js_string(out, labels->subtitle ? labels->subtitle : "");
    fputs(",\"unit\":", out);
    write_js_string(out, labels->unit);
    fputs(",\"names\":[", out);
    int result = jp_tree_walk(tree, write_name, &w);
    fputs("],\"kinds\":[", out);
    if (result == 0)
        result = write_kinds(out, &w);
    fputs("],\"kindTable\":[", out);
    for (int k = 0; k < JP_FRAME_KINDS; k++) {
        fputs(k ? ",[" : "[", out);
        write_js_string(out, kind_legend[k].label);
        fprintf(out, ",%d,%d]", kind_legend[k].hue, kind_legend[k].saturation);
    }
    fprintf(out, "],\"root\":[-1,%" PRIu64 ",0,[", scaled(&w, total));
    if (result == 0)
        result = jp_tree_walk(tree, write_node, &w);
    close_nodes(&w, w.depth + 1);
    fputc('}', out);
    fputs(jp_flame_page_tail, out);
    jp_idmap_free(&w.index);
    return result || ferror(out) ? -1 : 0;
}
