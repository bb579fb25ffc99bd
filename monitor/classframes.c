/* classframes.c - the frames that stand for classes (see classframes.h). */
#include <stdlib.h>
#include <string.h>

#include "classframes.h"
#include "javaname.h"

#define CLASS_NAME_MAX_BYTES 1024
#define OTHER_CLASSES_FRAME JP_CLASS_FRAME(JP_MAX_CLASS_FRAMES)
#define UNKNOWN_CLASS_FRAME JP_CLASS_FRAME(JP_MAX_CLASS_FRAMES + 1) /* a ClassID of 0 */
#define UNKNOWN_CLASS_NAME "(unknown class)"

int jp_class_frames_init(jp_class_frames *c, IJavaEventMonitorIDInfo *info, jp_names *names)
{
    memset(c, 0, sizeof(*c));
    c->info = info;
    c->names = names;
    return (c->lock = plat_mutex_create()) ? 0 : -1;
}

void jp_class_frames_free(jp_class_frames *c)
{
    for (size_t i = 0; i < c->class_count; i++)
        free(c->class_names[i]);
    free(c->class_names);
    jp_idmap_free(&c->classes);
    if (c->lock)
        plat_mutex_destroy(c->lock);
    memset(c, 0, sizeof(*c));
}

/* The frame of a class already met, or 0; called with the lock held. */
static MethodID known_class_frame(const jp_class_frames *c, ClassID klass)
{
    const jp_idmap_entry *e = jp_idmap_find(&c->classes, klass);
    return e ? JP_CLASS_FRAME(e->value - 1) : 0;
}

/* The display name of a class met for the first time (malloc'ed), asked of the VM with no lock held. */
static char *name_class(jp_class_frames *c, ClassID klass)
{
    char display[CLASS_NAME_MAX_BYTES];
    const char *name = jp_names_class(c->names, c->info, klass);
    jp_class_display_name(name ? name : UNKNOWN_CLASS_NAME, display, sizeof(display));
    return strdup(display);
}

/* Gives a new class its frame, taking ownership of name; called with the lock held.  0 when
 * out of memory.  Another thread may have added the class meanwhile: its frame is kept. */
static MethodID add_class_frame(jp_class_frames *c, ClassID klass, char *name)
{
    MethodID known = known_class_frame(c, klass);
    if (known || c->class_count == JP_MAX_CLASS_FRAMES || !name) {
        free(name);
        return known ? known : name ? OTHER_CLASSES_FRAME : 0;
    }
    if (c->class_count == c->class_capacity) {
        size_t capacity = c->class_capacity ? c->class_capacity * 2 : 64;
        char **grown = realloc(c->class_names, capacity * sizeof(*grown));
        if (!grown) {
            free(name);
            return 0;
        }
        c->class_names = grown;
        c->class_capacity = capacity;
    }
    jp_idmap_entry *e = jp_idmap_insert(&c->classes, klass);
    if (!e) {
        free(name);
        return 0;
    }
    e->value = c->class_count + 1;
    c->class_names[c->class_count] = name;
    return JP_CLASS_FRAME(c->class_count++);
}

MethodID jp_class_frames_frame(jp_class_frames *c, ClassID klass)
{
    if (!klass)
        return UNKNOWN_CLASS_FRAME;
    plat_mutex_lock(c->lock);
    MethodID frame = known_class_frame(c, klass);
    plat_mutex_unlock(c->lock);
    if (frame)
        return frame;
    char *name = name_class(c, klass);
    plat_mutex_lock(c->lock);
    frame = add_class_frame(c, klass, name);
    plat_mutex_unlock(c->lock);
    return frame;
}

void jp_class_frames_unloading(jp_class_frames *c, ClassID klass)
{
    plat_mutex_lock(c->lock);
    jp_idmap_remove(&c->classes, klass);
    plat_mutex_unlock(c->lock);
}

const char *jp_class_frames_name(jp_class_frames *c, MethodID frame)
{
    if (frame == OTHER_CLASSES_FRAME)
        return "(other classes)";
    if (frame == UNKNOWN_CLASS_FRAME)
        return UNKNOWN_CLASS_NAME;
    if (frame > JP_CLASS_FRAME(0) || JP_CLASS_FRAME(0) - frame >= JP_MAX_CLASS_FRAMES || !c->lock)
        return NULL;
    plat_mutex_lock(c->lock);
    const char *name = JP_CLASS_FRAME(0) - frame < c->class_count ? c->class_names[JP_CLASS_FRAME(0) - frame] : NULL;
    plat_mutex_unlock(c->lock);
    return name;
}
