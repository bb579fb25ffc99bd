/*
 * names.h - display names of methods and classes, kept so they outlive their IDs.
 *
 * MethodIDs and ClassIDs expire when their class unloads (spec 1.10), yet the call trees
 * keep MethodIDs until the program ends.  So method names are resolved lazily (at the end)
 * except for an unloading class, whose methods are resolved while its IDs are still valid.
 * Class names (for exceptions and allocations by class) are cached per ClassID and forgotten at unload.
 * Each method has a brief name ("pkg.Class.method"), a signature name ("pkg.Class.method(int,
 * long)") and a typed name ("pkg.Class.get(): java.lang.String"); overloads share a brief name,
 * so where two methods met so far do, jp_names_method gives the signature name once
 * jp_names_find_overloads has run, and where two share the signature name too (a bridge and the
 * covariant method it calls), the typed name.  Thread-safe.
 */
#ifndef JEVPROF_NAMES_H
#define JEVPROF_NAMES_H

#include "idmap.h"
#include "javaname.h"
#include "jevmon.h"
#include "platform/platform.h"

typedef struct jp_names {
    plat_mutex *lock;
    jp_idmap methods; /* MethodID -> jp_method_name * */
    jp_idmap classes; /* ClassID -> char * class name */
} jp_names;

int jp_names_init(jp_names *names);
void jp_names_free(jp_names *names);

/* The display name of method, from the cache or asked of the VM now: the brief name, or the
 * signature name for an overload found by jp_names_find_overloads.  The string lives as long as
 * names; a method the VM cannot name gets "<unknown method 0x...>". */
const char *jp_names_method(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method);
/* The signature name of method, always (the typed name where the signature name is shared). */
const char *jp_names_method_signature(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method);
/* Where the method's source is (see jp_method_sourcer): its file, or NULL, and its first line, or 0. */
const char *jp_names_method_source(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method,
                                   unsigned long *first_line);
/* The source line of method at a bytecode offset, from MethodInformation's line table: the line of
 * the last entry starting at or before offset; the method's first line for JEVMON_NO_PC_OFFSET or an
 * offset before the table; 0 when the method has no line table. */
unsigned long jp_names_method_line(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method, DWORD offset);
/* What the VM said the method is (MethodInformation's execution model). */
jp_frame_kind jp_names_method_kind(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method);
/* Marks the methods named so far whose brief names (or signature names) are shared by another method's. */
void jp_names_find_overloads(jp_names *names);

/* The name of a class as ClassInformation gives it ("java.lang.String", "[I"), or NULL when the
 * VM cannot say.  The string lives until the class unloads: copy it. */
char *jp_names_class(jp_names *names, IJavaEventMonitorIDInfo *info, ClassID klass);

/* The class name of an object (for the exceptions summary), as jp_names_class gives it. */
char *jp_names_class_of_object(jp_names *names, IJavaEventMonitorIDInfo *info, ObjectID object);

/* At CLASS_UNLOAD, before returning: names the class's methods and forgets the ClassID. */
void jp_names_class_unloading(jp_names *names, IJavaEventMonitorIDInfo *info, ClassID klass);

#endif /* JEVPROF_NAMES_H */
