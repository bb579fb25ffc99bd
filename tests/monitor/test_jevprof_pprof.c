/*
 * test_jevprof_pprof.c - jevprof's pprof files without a VM: a known tree encoded as
 * profile.proto and decoded back here field by field (the string table, the functions, every
 * sample's locations and values), and the gzip container of the platform layer (zlib on Linux,
 * stored blocks on Windows) checked against known CRC-32s.  test_jevprof reads real profiles
 * back with `go tool pprof`.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/pprof.h"
#include "../support/testkit.h"
#include "platform/platform.h"

enum { MAIN = 1, WORK, HOT, COLD };

static const char *long_name(void *context, MethodID method)
{
    (void)context;
    static const char *const names[] = {"?", "demo.Main.main(java.lang.String[])", "demo.Main.work()",
                                        "demo.Main.hot(int)", "demo.Main.cold(int)"};
    return method == JP_FOLDED_PATHS ? "(folded)" : names[method <= COLD ? method : 0];
}

static const char *brief_name(void *context, MethodID method)
{
    (void)context;
    static const char *const names[] = {"?", "demo.Main.main", "demo.Main.work", "demo.Main.hot", "demo.Main.cold"};
    return names[method <= COLD ? method : 0];
}

/* demo/Main.java, each method starting 10 lines below the one before; cold's source is unknown. */
static const char *source(void *context, MethodID method, unsigned long *first_line)
{
    (void)context;
    *first_line = method == COLD ? 0 : 10 * method;
    return method == COLD ? NULL : "demo/Main.java";
}

/* What the decoder found: at most 16 of each. */
typedef struct decoded {
    char strings[32][64];
    size_t string_count;
    uint64_t function_name[16], function_system_name[16]; /* by function id */
    uint64_t function_filename[16], function_start_line[16], location_line[16];
    uint64_t location_function[16], location_line_by_id[16]; /* by location id */
    uint64_t sample_locations[16][8], sample_depth[16], sample_values[16][2];
    size_t sample_count, location_count, function_count;
    uint64_t sample_types[2][2], period_type[2], period, time_nanos, duration_nanos;
} decoded;

static uint64_t varint(const uint8_t **at, const uint8_t *end)
{
    uint64_t value = 0;
    for (int shift = 0; *at < end; shift += 7) {
        uint8_t byte = *(*at)++;
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return value;
    }
    ck_abort_msg("a varint runs past its message");
    return 0;
}

/* Calls field(context, number, value or length, bytes) for each field of the message. */
typedef void (*field_fn)(void *context, unsigned number, uint64_t value, const uint8_t *bytes);
static void each_field(const uint8_t *at, const uint8_t *end, field_fn field, void *context)
{
    while (at < end) {
        uint64_t key = varint(&at, end), value = varint(&at, end);
        ck_assert_msg((key & 7) == 0 || (key & 7) == 2, "wire type %u", (unsigned)(key & 7));
        field(context, (unsigned)(key >> 3), value, (key & 7) == 2 ? at : NULL);
        if ((key & 7) == 2) {
            ck_assert_uint_le(value, (uint64_t)(end - at));
            at += value;
        }
    }
}

typedef struct message {
    uint64_t fields[8];
} message;

/* A ValueType's or a Function's fields (numbers below 8: varints). */
static void sub_field(void *context, unsigned number, uint64_t value, const uint8_t *bytes)
{
    message *m = context;
    (void)bytes;
    if (number < 8)
        m->fields[number] = value;
}

/* A Location's fields: its id (first), then its Line (function_id 1, line 2), by its function's id
 * and by its own. */
static uint64_t decoding_location;
static void location_field(void *context, unsigned number, uint64_t value, const uint8_t *bytes)
{
    decoded *d = context;
    message line = {{0}};
    if (number == 1)
        decoding_location = value;
    if (number != 4)
        return;
    each_field(bytes, bytes + value, sub_field, &line);
    ck_assert_uint_lt(line.fields[1], 16);
    ck_assert_uint_lt(decoding_location, 16);
    d->location_line[line.fields[1]] = line.fields[2];
    d->location_function[decoding_location] = line.fields[1];
    d->location_line_by_id[decoding_location] = line.fields[2];
}

static void profile_field(void *context, unsigned number, uint64_t value, const uint8_t *bytes)
{
    decoded *d = context;
    message m = {{0}};
    if (number == 6) { /* string_table */
        ck_assert_uint_lt(value, sizeof(d->strings[0]));
        memcpy(d->strings[d->string_count], bytes, value);
        d->strings[d->string_count++][value] = '\0';
    } else if (number == 1 || number == 11) { /* sample_type, period_type */
        each_field(bytes, bytes + value, sub_field, &m);
        uint64_t *type = number == 11 ? d->period_type : d->sample_types[d->sample_types[0][0] ? 1 : 0];
        type[0] = m.fields[1], type[1] = m.fields[2];
    } else if (number == 2) { /* sample: packed location ids, packed values */
        const uint8_t *at = bytes, *end = bytes + value;
        size_t s = d->sample_count++;
        while (at < end) {
            uint64_t key = varint(&at, end), length = varint(&at, end);
            const uint8_t *field_end = at + length;
            ck_assert_uint_eq(key & 7, 2);
            for (size_t i = 0; at < field_end; i++) {
                if ((key >> 3) == 1)
                    d->sample_locations[s][d->sample_depth[s]++] = varint(&at, field_end);
                else
                    d->sample_values[s][i] = varint(&at, field_end);
            }
        }
    } else if (number == 4) { /* location: its id, its line (a function id and a line number) */
        each_field(bytes, bytes + value, location_field, d);
        d->location_count++;
    } else if (number == 5) { /* function */
        each_field(bytes, bytes + value, sub_field, &m);
        d->function_name[m.fields[1]] = m.fields[2];
        d->function_system_name[m.fields[1]] = m.fields[3];
        d->function_filename[m.fields[1]] = m.fields[4];
        d->function_start_line[m.fields[1]] = m.fields[5];
        d->function_count++;
    } else if (number == 12)
        d->period = value;
    else if (number == 9)
        d->time_nanos = value;
    else if (number == 10)
        d->duration_nanos = value;
}

static void decode(const jp_pprof_profile *p, decoded *d)
{
    uint8_t *data = NULL;
    size_t size = 0;
    ck_assert_int_eq(jp_pprof_encode(p, &data, &size), 0);
    memset(d, 0, sizeof(*d));
    each_field(data, data + size, profile_field, d);
    free(data);
    ck_assert_str_eq(d->strings[0], "");
}

/* The sample whose innermost frame is leaf (a function named so), its values in values. */
static const uint64_t *sample_ending_in(const decoded *d, const char *leaf, size_t depth)
{
    for (size_t s = 0; s < d->sample_count; s++)
        if (d->sample_depth[s] == depth && !strcmp(d->strings[d->function_name[d->sample_locations[s][0]]], leaf))
            return d->sample_values[s];
    ck_abort_msg("no sample ends in %s at depth %zu", leaf, depth);
    return NULL;
}

/* main -> work -> hot: 70; main -> work -> cold: 20; main -> work: 5; main: 5 */
static void fill(jp_tree *tree, uint64_t unit)
{
    const MethodID hot[] = {MAIN, WORK, HOT}, cold[] = {MAIN, WORK, COLD}, work[] = {MAIN, WORK}, main_[] = {MAIN};
    ck_assert_int_eq(jp_tree_init(tree), 0);
    jp_tree_add_stack(tree, hot, 3, 70 * unit);
    jp_tree_add_stack(tree, cold, 3, 20 * unit);
    jp_tree_add_stack(tree, work, 2, 5 * unit);
    jp_tree_add_stack(tree, main_, 1, 5 * unit);
    jp_tree_sum_root(tree);
}

START_TEST(samples_decode_back_to_the_tree)
{
    jp_tree tree;
    decoded d;
    fill(&tree, 1);
    jp_pprof_profile p = {.kind = JP_PPROF_SAMPLES, .tree = &tree, .scale = 1, .period = 10000000,
                          .time_nanos = 1700000000000000000, .duration_nanos = 2500000000,
                          .name = long_name, .system_name = brief_name, .source = source};
    decode(&p, &d);
    ck_assert_str_eq(d.strings[d.sample_types[0][0]], "samples");
    ck_assert_str_eq(d.strings[d.sample_types[0][1]], "count");
    ck_assert_str_eq(d.strings[d.sample_types[1][0]], "cpu");
    ck_assert_str_eq(d.strings[d.sample_types[1][1]], "nanoseconds");
    ck_assert_str_eq(d.strings[d.period_type[0]], "cpu");
    ck_assert_uint_eq(d.period, 10000000);
    ck_assert_uint_eq(d.time_nanos, 1700000000000000000ull);
    ck_assert_uint_eq(d.duration_nanos, 2500000000ull);
    ck_assert_uint_eq(d.sample_count, 4);
    ck_assert_uint_eq(d.function_count, 4);
    ck_assert_uint_eq(d.location_count, 4);
    const uint64_t *hot = sample_ending_in(&d, "demo.Main.hot(int)", 3);
    ck_assert_uint_eq(hot[0], 70);
    ck_assert_uint_eq(hot[1], 700000000);
    ck_assert_uint_eq(sample_ending_in(&d, "demo.Main.main(java.lang.String[])", 1)[0], 5);
    for (size_t s = 0; s < d.sample_count; s++) /* the outermost location is main's */
        ck_assert_str_eq(d.strings[d.function_name[d.sample_locations[s][d.sample_depth[s] - 1]]],
                         "demo.Main.main(java.lang.String[])");
    for (uint64_t id = 1; id <= d.function_count; id++) /* each function's system name is its brief name */
        if (!strcmp(d.strings[d.function_name[id]], "demo.Main.hot(int)"))
            ck_assert_str_eq(d.strings[d.function_system_name[id]], "demo.Main.hot");
    /* the source file once in the string table; each function's first line, in its location too */
    int files = 0;
    for (size_t i = 0; i < d.string_count; i++)
        files += !strcmp(d.strings[i], "demo/Main.java");
    ck_assert_int_eq(files, 1);
    for (uint64_t id = 1; id <= d.function_count; id++) {
        const char *name = d.strings[d.function_name[id]];
        uint64_t line = !strcmp(name, "demo.Main.hot(int)") ? 30 : !strcmp(name, "demo.Main.cold(int)") ? 0
                        : !strcmp(name, "demo.Main.work()")  ? 20 : 10;
        ck_assert_str_eq(d.strings[d.function_filename[id]], line ? "demo/Main.java" : "");
        ck_assert_uint_eq(d.function_start_line[id], line);
        ck_assert_uint_eq(d.location_line[id], line);
    }
    jp_tree_free(&tree);
}
END_TEST

/* hot's line 31 from offset 0 to 7, line 33 from 8 on; every other frame at its first line. */
static unsigned long line_at(void *context, MethodID method, DWORD offset)
{
    unsigned long first = 0;
    source(context, method, &first);
    return method == HOT && offset != JP_NO_OFFSET ? (offset < 8 ? 31 : 33) : first;
}

/* Frames at offsets: a location per line of a function (offsets 4 and 5 share one), the function once. */
START_TEST(frames_at_offsets_have_a_location_per_line)
{
    jp_tree tree;
    decoded d;
    const MethodID hot[] = {MAIN, HOT};
    const DWORD at4[] = {JP_NO_OFFSET, 4}, at5[] = {JP_NO_OFFSET, 5}, at9[] = {JP_NO_OFFSET, 9};
    ck_assert_int_eq(jp_tree_init(&tree), 0);
    jp_tree_add_located_stack(&tree, hot, at4, 2, 60);
    jp_tree_add_located_stack(&tree, hot, at9, 2, 30);
    jp_tree_add_located_stack(&tree, hot, at5, 2, 10);
    jp_tree_sum_root(&tree);
    jp_pprof_profile p = {.kind = JP_PPROF_SAMPLES, .tree = &tree, .scale = 1, .period = 1,
                          .name = long_name, .system_name = brief_name, .source = source, .line = line_at};
    decode(&p, &d);
    ck_assert_uint_eq(d.function_count, 2);
    ck_assert_uint_eq(d.location_count, 3);
    ck_assert_uint_eq(d.sample_count, 3);
    uint64_t at_line[40] = {0};
    for (size_t s = 0; s < d.sample_count; s++) {
        uint64_t leaf = d.sample_locations[s][0], outer = d.sample_locations[s][1];
        ck_assert_str_eq(d.strings[d.function_name[d.location_function[leaf]]], "demo.Main.hot(int)");
        ck_assert_uint_eq(d.function_start_line[d.location_function[leaf]], 30);
        ck_assert_uint_eq(d.location_line_by_id[outer], 10);
        at_line[d.location_line_by_id[leaf]] += d.sample_values[s][0];
    }
    ck_assert_uint_eq(at_line[31], 70);
    ck_assert_uint_eq(at_line[33], 30);
    jp_tree_free(&tree);
}
END_TEST

/* Allocations in thousandths become whole ones; bytes come from the other tree by path, and a
 * path the bytes tree lacks (its object could not be sized) has none. */
START_TEST(allocations_take_bytes_by_path)
{
    jp_tree sites, bytes;
    decoded d;
    fill(&sites, 1000);
    ck_assert_int_eq(jp_tree_init(&bytes), 0);
    const MethodID hot[] = {MAIN, WORK, HOT}, work[] = {MAIN, WORK};
    jp_tree_add_stack(&bytes, work, 2, 80);   /* added first: its node indices differ from sites' */
    jp_tree_add_stack(&bytes, hot, 3, 1120);
    jp_tree_sum_root(&bytes);
    jp_pprof_profile p = {.kind = JP_PPROF_ALLOCATIONS, .tree = &sites, .bytes = &bytes, .scale = 1000,
                          .period = 524288, .name = long_name, .system_name = brief_name};
    decode(&p, &d);
    ck_assert_str_eq(d.strings[d.sample_types[0][0]], "alloc_objects");
    ck_assert_str_eq(d.strings[d.sample_types[1][0]], "alloc_space");
    ck_assert_str_eq(d.strings[d.sample_types[1][1]], "bytes");
    ck_assert_uint_eq(d.period, 524288);
    const uint64_t *at_hot = sample_ending_in(&d, "demo.Main.hot(int)", 3);
    ck_assert_uint_eq(at_hot[0], 70);
    ck_assert_uint_eq(at_hot[1], 1120);
    ck_assert_uint_eq(sample_ending_in(&d, "demo.Main.work()", 2)[1], 80);
    ck_assert_uint_eq(sample_ending_in(&d, "demo.Main.cold(int)", 3)[1], 0);
    jp_tree_free(&sites);
    jp_tree_free(&bytes);
}
END_TEST

/* The allocations tree as the collapsed file folds it (cold's 20 under work) takes the bytes of
 * the folded path into the same place: every byte stays, and no bytes go by a path that only
 * looks the same (main -> cold, a path of its own, is not main -> work -> cold). */
START_TEST(folded_allocations_keep_their_bytes_in_the_caller)
{
    jp_tree sites, folded, bytes;
    decoded d;
    fill(&sites, 1000);
    const MethodID hot[] = {MAIN, WORK, HOT}, cold[] = {MAIN, WORK, COLD}, work[] = {MAIN, WORK};
    const MethodID main_cold[] = {MAIN, COLD}, main_cold_hot[] = {MAIN, WORK, COLD, HOT};
    jp_tree_add_stack(&sites, main_cold, 2, 30 * 1000); /* kept: 30 of 130 */
    jp_tree_add_stack(&sites, main_cold_hot, 4, 1 * 1000);
    jp_tree_sum_root(&sites);
    ck_assert_int_eq(jp_tree_init(&folded), 0);
    ck_assert_int_eq(jp_tree_fold(&folded, &sites, 25 * 1000), 0);
    ck_assert_int_eq(jp_tree_init(&bytes), 0);
    jp_tree_add_stack(&bytes, hot, 3, 1120);
    jp_tree_add_stack(&bytes, cold, 3, 320);
    jp_tree_add_stack(&bytes, main_cold_hot, 4, 16);
    jp_tree_add_stack(&bytes, work, 2, 80);
    jp_tree_add_stack(&bytes, main_cold, 2, 480);
    jp_tree_sum_root(&bytes);
    jp_pprof_profile p = {.kind = JP_PPROF_ALLOCATIONS, .tree = &folded, .bytes = &bytes, .scale = 1000,
                          .period = 524288, .name = long_name, .system_name = brief_name};
    decode(&p, &d);
    ck_assert_uint_eq(d.sample_count, 5); /* main -> work -> hot, -> (folded), main -> work, main -> cold, main */
    const uint64_t *at_work = sample_ending_in(&d, "demo.Main.work()", 2);
    ck_assert_uint_eq(at_work[0], 5);
    ck_assert_uint_eq(at_work[1], 80);
    const uint64_t *under_work = sample_ending_in(&d, "(folded)", 3);
    ck_assert_uint_eq(under_work[0], 20 + 1);
    ck_assert_uint_eq(under_work[1], 320 + 16);
    ck_assert_uint_eq(sample_ending_in(&d, "demo.Main.cold(int)", 2)[1], 480);
    ck_assert_uint_eq(sample_ending_in(&d, "demo.Main.hot(int)", 3)[1], 1120);
    jp_tree_free(&sites), jp_tree_free(&folded), jp_tree_free(&bytes);
}
END_TEST

/* The gzip member's header and its trailer: the CRC-32 and the length of the data. */
static const struct gzip_case {
    size_t size;
    uint32_t crc;
} gzip_cases[] = {{9, 0xCBF43926u}, {200000, 0xDEFA9E47u}, {0, 0}};

START_TEST(gzip_member_ends_with_the_crc_and_length)
{
    const struct gzip_case *c = &gzip_cases[_i];
    unsigned char *data = malloc(c->size + 1);
    for (size_t i = 0; i < c->size; i++)
        data[i] = c->size == 9 ? (unsigned char)('1' + i) : (unsigned char)(i * 7 + 3);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(plat_gzip_write(f, data, c->size), 0);
    long size = ftell(f);
    ck_assert_int_ge(size, 18);
    unsigned char header[3], trailer[8];
    rewind(f);
    ck_assert_uint_eq(fread(header, 1, 3, f), 3);
    ck_assert_int_eq(fseek(f, size - 8, SEEK_SET), 0);
    ck_assert_uint_eq(fread(trailer, 1, 8, f), 8);
    ck_assert_uint_eq(header[0], 0x1f);
    ck_assert_uint_eq(header[1], 0x8b);
    ck_assert_uint_eq(header[2], 8); /* deflate */
    uint32_t crc = trailer[0] | trailer[1] << 8 | trailer[2] << 16 | (uint32_t)trailer[3] << 24;
    uint32_t length = trailer[4] | trailer[5] << 8 | trailer[6] << 16 | (uint32_t)trailer[7] << 24;
    ck_assert_uint_eq(crc, c->crc);
    ck_assert_uint_eq(length, c->size);
    fclose(f);
    free(data);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("jevprof_pprof");
    TCase *tc = tcase_create("pprof");
    tcase_add_test(tc, samples_decode_back_to_the_tree);
    tcase_add_test(tc, frames_at_offsets_have_a_location_per_line);
    tcase_add_test(tc, allocations_take_bytes_by_path);
    tcase_add_test(tc, folded_allocations_keep_their_bytes_in_the_caller);
    tcase_add_loop_test(tc, gzip_member_ends_with_the_crc_and_length, 0,
                        (int)(sizeof(gzip_cases) / sizeof(*gzip_cases)));
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}
