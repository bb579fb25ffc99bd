/*
 * names.h - display names of methods and classes, kept so they outlive their IDs.
 *
 * MethodIDs and ClassIDs expire when their class unloads (spec 1.10), yet the call trees
 * keep MethodIDs until the program ends.  So method names are resolved lazily (at the end)
 * except for an unloading class, whose methods are resolved while its IDs are still valid.
 * Class names (for exceptions and allocations by class) are cached per ClassID and forgotten at unload.
 * Thread-safe.
 */
#ifndef JEVPROF_NAMES_H
#define JEVPROF_NAMES_H

#include "idmap.h"
#include "jevmon.h"
#include "platform/platform.h"

typedef struct jp_names {
    plat_mutex *lock;
    jp_idmap methods; /* MethodID -> char * display name */
    jp_idmap classes; /* ClassID -> char * class name */
} jp_names;

int jp_names_init(jp_names *names);
void jp_names_free(jp_names *names);

/* The display name of method, from the cache or asked of the VM now.  The string lives as
 * long as names; a method the VM cannot name gets "<unknown method 0x...>". */
const char *jp_names_method(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method);

/* The name of a class as ClassInformation gives it ("java.lang.String", "[I"), or NULL when the
 * VM cannot say.  The string lives until the class unloads: copy it. */
char *jp_names_class(jp_names *names, IJavaEventMonitorIDInfo *info, ClassID klass);

/* The class name of an object (for the exceptions summary), as jp_names_class gives it. */
char *jp_names_class_of_object(jp_names *names, IJavaEventMonitorIDInfo *info, ObjectID object);

/* At CLASS_UNLOAD, before returning: names the class's methods and forgets the ClassID. */
void jp_names_class_unloading(jp_names *names, IJavaEventMonitorIDInfo *info, ClassID klass);

#endif /* JEVPROF_NAMES_H */
