/*
 * classfile_build.h - what the class-file suites share (test_classfile, test_classfile_branches):
 * class files built byte by byte, the rewriter run with test hooks, and checks of what it wrote.
 */
#ifndef JEVMON_TEST_CLASSFILE_BUILD_H
#define JEVMON_TEST_CLASSFILE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "classfile/classfile.h"
#include "classfile/internal.h"

/* ---- Building class files ---------------------------------------------------------------- */

typedef struct bytes {
    uint8_t *data;
    size_t size, capacity;
} bytes;

typedef struct builder {
    bytes cp, methods;
    unsigned cp_count, method_count;
} builder;

/* n bytes, then big-endian numbers of 1, 2 and 4 bytes, appended to b. */
void put(bytes *b, const void *data, size_t n);
void u1(bytes *b, unsigned v);
void u2(bytes *b, unsigned v);
void u4(bytes *b, uint32_t v);
/* The constant-pool index of a new Utf8 entry, and of a new Class entry naming name. */
unsigned utf8(builder *c, const char *text);
unsigned class_entry(builder *c, const char *name);
/* A method; code NULL makes it native. */
void method(builder *c, unsigned access, const char *name, const char *descriptor, const uint8_t *code,
            size_t length);
/* An empty class under construction. */
void builder_init(builder *c);
/* The class file; frees what the builder held. */
bytes finish(builder *c, unsigned major);
/* A version-49 class (no stack maps) with one static method "m" whose code is given. */
bytes class_with_code(const uint8_t *code, size_t length);
/* $JEVMON_SRC/relative (default: the working directory), read whole. */
bytes read_source_file(const char *relative);

/* ---- Instrumenting -------------------------------------------------------------------------- */

/* The ids the hooks hand out (from 0 after setup) and the methods left alone, by reason. */
extern int32_t next_id;
extern unsigned left_alone_count[4];
/* jevmon/Bridge's enter and exit, with and without the on/off flag array. */
extern const cf_hooks flagged, unflagged;

/* The hooks' callbacks: the next id, and counting a method left alone. */
int32_t assign_id(void *context, const cf_method_info *m);
void note_left_alone(void *context, const cf_method_info *m, cf_left_alone why);
/* Each test's fixture: ids from 0, no method left alone, jevmon: lines captured (tk_capture_log). */
void setup(void);
void teardown(void);
/* Instruments input, then parses the result (the caller frees it with cf_free). */
cf_class *instrument(const bytes *input, const cf_hooks *hooks, uint8_t **out, cf_instrument_stats *stats);
/* A method of cls by name and descriptor (the test fails without it). */
const cf_member *find_method(const cf_class *cls, const char *name, const char *descriptor);
/* Whether the method ref at index names jevmon/Bridge.name. */
int is_bridge_call(const cf_class *cls, const uint8_t *insn, const char *name);
/* Counts invokestatic Bridge.name in code; every instruction must decode. */
int count_calls(const cf_class *cls, const cf_code *code, const char *name);
/* Every return must come right after a call of Bridge.exit (through its guard). */
void check_returns_report_exit(const cf_class *cls, const cf_code *code);
/* The decoded StackMapTable of an instrumented method. */
uint16_t frames_of(cf_class *cls, const cf_member *m, cf_frame **frames);
/* The frame of frames at pc, or NULL. */
const cf_frame *frame_at(const cf_frame *frames, uint16_t count, uint32_t pc);
/* Every pc a LineNumberTable or LocalVariableTable names starts an instruction, and no
 * variable range reaches into the injected handlers. */
void check_debug_tables(const cf_class *cls, const cf_code *code);

#endif
