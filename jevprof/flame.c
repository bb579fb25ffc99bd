/* flame.c - the HTML flame graph writer (see flame.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "idmap.h"

/* The page up to its data, and after it.  The data is one script statement:
 *   var DATA = {title, subtitle, unit, names: [...], kinds: [a jp_frame_kind per name],
 *               root: [name index (-1: all), total, self, [children]]}; */
static const char page_head[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>jevprof flame graph</title>\n"
    "<style>\n"
    "body{font:13px sans-serif;margin:10px;color:#222;background:#fff}\n"
    "h1{font-size:16px;margin:0 0 2px}\n"
    "#subtitle{color:#555;margin:0 0 8px}\n"
    "#bar{display:flex;gap:8px;align-items:center;margin-bottom:6px}\n"
    "#legend span{display:inline-block;padding:0 4px;margin-right:2px;font:11px monospace}\n"
    "#info{min-height:1.3em;margin-bottom:4px;font-family:monospace;white-space:pre}\n"
    "#chart{position:relative;width:100%;overflow:hidden}\n"
    ".f{position:absolute;height:17px;box-sizing:border-box;border:1px solid #fff;overflow:hidden;"
    "white-space:nowrap;text-overflow:ellipsis;padding:0 3px;font:11px/15px monospace;cursor:pointer}\n"
    ".f:hover{border-color:#000}\n"
    ".f.below{opacity:.6}\n"
    ".f.match{background:#d03be0 !important;color:#fff}\n"
    "</style></head><body>\n"
    "<h1 id=\"title\"></h1><div id=\"subtitle\"></div>\n"
    "<div id=\"bar\"><select id=\"view\" title=\"View\"><option value=\"icicle\">Icicle (callers above)</option>"
    "<option value=\"flame\">Flame (callers below)</option><option value=\"reversed\">Reversed (callers of the "
    "hottest frames)</option></select><input id=\"search\" type=\"search\" size=\"40\" placeholder=\"Search: "
    "highlight frames containing...\"><button id=\"reset\">Reset zoom</button><span id=\"matched\"></span>"
    "<span id=\"legend\"></span></div>\n"
    "<div id=\"info\">Click a frame to zoom in, a frame on the caller side to zoom out; Esc resets.</div>\n"
    "<div id=\"chart\"></div>\n"
    "<script>\nvar DATA = ";

/* Frame kinds (DATA.kinds, by name index): what the VM says of a method (jp_frame_kind), in
 * async-profiler's colours where it has them. */
static const char page_tail[] =
    ";\n(function () {\n"
    "  'use strict';\n"
    "  var ROW = 18, chart = document.getElementById('chart'), info = document.getElementById('info');\n"
    "  var search = document.getElementById('search'), matched = document.getElementById('matched');\n"
    "  var viewSelect = document.getElementById('view');\n"
    "  var KINDS = [['other', 0, 0], ['interpreted', 150, 55], ['compiled', 110, 45], ['native', 0, 60],\n"
    "               ['VM', 55, 45], ['allocated class', 210, 60]];\n"
    "  document.getElementById('title').textContent = DATA.title;\n"
    "  document.getElementById('subtitle').textContent = DATA.subtitle;\n"
    "  /* Nodes as objects with parent links, built without recursion (stacks can be deep). */\n"
    "  function node(a, parent) { return {name: a[0] < 0 ? 'all' : DATA.names[a[0]], kind: a[0] < 0 ? 0 :\n"
    "                                      DATA.kinds[a[0]], total: a[1], self: a[2], raw: a[3], kids: [],\n"
    "                                      parent: parent}; }\n"
    "  var root = node(DATA.root, null), todo = [root], withSelf = [];\n"
    "  while (todo.length) {\n"
    "    var n = todo.pop();\n"
    "    if (n.self > 0 && n.parent) withSelf.push(n);\n"
    "    for (var i = 0; i < n.raw.length; i++) { var k = node(n.raw[i], n); n.kids.push(k); todo.push(k); }\n"
    "    n.raw = null;\n"
    "  }\n"
    "  /* The reversed tree, made when first shown: each frame's self weight, under its callers in turn. */\n"
    "  var reversedRoot = null;\n"
    "  function reversed() {\n"
    "    if (reversedRoot) return reversedRoot;\n"
    "    reversedRoot = {name: 'all', kind: 0, total: root.total, self: 0, kids: [], parent: null, index: {}};\n"
    "    for (var i = 0; i < withSelf.length; i++) {\n"
    "      var at = reversedRoot, w = withSelf[i].self;\n"
    "      for (var f = withSelf[i]; f.parent; f = f.parent) {\n"
    "        var key = f.kind + ':' + f.name, next = at.index[key];\n"
    "        if (!next) { next = {name: f.name, kind: f.kind, total: 0, self: 0, kids: [], parent: at, index: {}};\n"
    "                     at.index[key] = next; at.kids.push(next); }\n"
    "        next.total += w;\n"
    "        if (!f.parent.parent) next.self += w;\n"
    "        at = next;\n"
    "      }\n"
    "    }\n"
    "    var sort = [reversedRoot];\n"
    "    while (sort.length) { var s = sort.pop(); s.kids.sort(function (a, b) { return b.total - a.total; });\n"
    "                          for (var q = 0; q < s.kids.length; q++) sort.push(s.kids[q]); }\n"
    "    return reversedRoot;\n"
    "  }\n"
    "  var view = 'icicle', top = root, zoom = root, term = '';\n"
    "  function isMatch(n) { return term !== '' && n.name.toLowerCase().indexOf(term) >= 0; }\n"
    "  function share(v) { return top.total ? (100 * v / top.total).toFixed(2) + '%' : '0%'; }\n"
    "  function color(n) {\n"
    "    var h = 0, s = n.name, k = KINDS[n.kind] || KINDS[0];\n"
    "    for (var i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;\n"
    "    if (n.kind) return 'hsl(' + (k[1] + h % 20) + ',' + k[2] + '%,' + (60 + (h >>> 12) % 15) + '%)';\n"
    "    return 'hsl(' + (8 + h % 45) + ',' + (70 + (h >>> 6) % 25) + '%,' + (55 + (h >>> 12) % 15) + '%)';\n"
    "  }\n"
    "  var legend = document.getElementById('legend'), seen = {};\n"
    "  for (var d = 0; d < DATA.kinds.length; d++) seen[DATA.kinds[d]] = 1;\n"
    "  for (var c = 1; c < KINDS.length; c++) if (seen[c]) {\n"
    "    var tag = document.createElement('span');\n"
    "    tag.textContent = KINDS[c][0]; tag.style.background = color({name: '', kind: c});\n"
    "    legend.appendChild(tag);\n"
    "  }\n"
    "  function describe(n) {\n"
    "    return n.name + '  ' + n.total + ' ' + DATA.unit + ' (' + share(n.total) + '), self ' + n.self +\n"
    "           (n.kind ? ', ' + KINDS[n.kind][0] : '');\n"
    "  }\n"
    "  function render() {\n"
    "    var width = chart.clientWidth || 1000, frag = document.createDocumentFragment(), depth = 0, drawn = [];\n"
    "    function box(n, x, w, d, below) {\n"
    "      var e = document.createElement('div');\n"
    "      e.className = 'f' + (below ? ' below' : '') + (isMatch(n) ? ' match' : '');\n"
    "      e.style.left = x + 'px'; e.style.width = w + 'px';\n"
    "      e.style.background = color(n);\n"
    "      if (w > 28) e.textContent = n.name;\n"
    "      e.title = describe(n);\n"
    "      e.onclick = function () { zoom = n; render(); };\n"
    "      e.onmouseover = function () { info.textContent = describe(n); };\n"
    "      frag.appendChild(e);\n"
    "      drawn.push([e, d]);\n"
    "      if (d > depth) depth = d;\n"
    "    }\n"
    "    var below = [];\n"
    "    for (var p = zoom.parent; p; p = p.parent) below.unshift(p);\n"
    "    for (var i = 0; i < below.length; i++) box(below[i], 0, width, i, true);\n"
    "    var todo = [[zoom, 0, width, below.length]];\n"
    "    while (todo.length) {\n"
    "      var t = todo.pop(), n = t[0], x = t[1], w = t[2], d = t[3];\n"
    "      box(n, x, w, d, false);\n"
    "      var scale = n.total > 0 ? w / n.total : 0;\n"
    "      for (var j = 0; j < n.kids.length; j++) {\n"
    "        var k = n.kids[j], kw = Math.min(k.total * scale, x + w - (t[1]));\n"
    "        if (kw >= 0.5) todo.push([k, t[1], kw, d + 1]);\n"
    "        t[1] += k.total * scale;\n"
    "      }\n"
    "    }\n"
    "    /* Icicle and reversed: the root on top; flame: the root at the bottom. */\n"
    "    for (var r = 0; r < drawn.length; r++)\n"
    "      drawn[r][0].style.top = (view === 'flame' ? depth - drawn[r][1] : drawn[r][1]) * ROW + 'px';\n"
    "    chart.textContent = '';\n"
    "    chart.style.height = (depth + 1) * ROW + 'px';\n"
    "    chart.appendChild(frag);\n"
    "    var total = 0, walk = [top];\n"
    "    while (walk.length) {\n"
    "      var m = walk.pop();\n"
    "      if (isMatch(m)) { total += m.total; continue; }\n"
    "      for (var q = 0; q < m.kids.length; q++) walk.push(m.kids[q]);\n"
    "    }\n"
    "    matched.textContent = term ? 'Matched: ' + share(total) : '';\n"
    "  }\n"
    "  viewSelect.onchange = function () {\n"
    "    view = viewSelect.value; top = zoom = view === 'reversed' ? reversed() : root; render();\n"
    "  };\n"
    "  search.oninput = function () { term = search.value.toLowerCase(); render(); };\n"
    "  document.getElementById('reset').onclick = function () { zoom = top; render(); };\n"
    "  document.onkeydown = function (e) { if (e.key === 'Escape') { zoom = top; render(); } };\n"
    "  window.onresize = render;\n"
    "  render();\n"
    "})();\n</script>\n</body></html>\n";

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
    fputs(page_head, out);
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
    fprintf(out, "],\"root\":[-1,%" PRIu64 ",0,[", scaled(&w, total));
    if (result == 0)
        result = jp_tree_walk(tree, write_node, &w);
    close_nodes(&w, w.depth + 1);
    fputc('}', out);
    fputs(page_tail, out);
    jp_idmap_free(&w.index);
    return result || ferror(out) ? -1 : 0;
}
