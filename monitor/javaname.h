/*
 * javaname.h - the human-readable form of the VM's method names.
 *
 * MethodInformation gives "java/lang/Object.hashCode()I" (class with slashes, a dot, the
 * method name, its signature); reports show "java.lang.Object.hashCode".  Allocated classes
 * appear as frames too, by their class names.
 */
#ifndef JEVPROF_JAVANAME_H
#define JEVPROF_JAVANAME_H

#include <stddef.h>

#include "jevmon.h"

/* Writes the display form of vm_name into out (always NUL-terminated, truncated to fit).
 * Slashes become dots, the signature is dropped, and the characters that would break a
 * collapsed-stacks line (';', newlines, other control characters) become '_'. */
void jp_display_name(const char *vm_name, char *out, size_t out_size);

/* Writes the Java form of vm_name with its parameter types: "java.lang.String.indexOf(int, int)",
 * "demo.Main.main(java.lang.String[])" (the return type left out), for names that would
 * otherwise be ambiguous (overloads).  A name without a signature is written as jp_display_name
 * writes it. */
void jp_signature_name(const char *vm_name, char *out, size_t out_size);

/* Writes jp_signature_name's form with the return type after a colon: "Gen$Sup.get(): java.lang.String",
 * for methods that differ in it alone (a bridge and the covariant method it calls). */
void jp_typed_name(const char *vm_name, char *out, size_t out_size);

/* Writes the display form of the start class Initialize names: a class in class-file form
 * ("com/sun/tools/javac/Main") with dots, a jar or a source file as it is. */
void jp_program_display_name(const char *start_class, char *out, size_t out_size);

/* Writes the display form of a class name as ClassInformation gives it ("java.lang.String",
 * "[I", "[Ljava.lang.String;"): arrays keep their descriptor, less the ';' that closes an
 * object array's element class ("[Ljava.lang.String"), and the characters that would break a
 * collapsed-stacks line become '_' as in jp_display_name. */
void jp_class_display_name(const char *vm_name, char *out, size_t out_size);

/* How the writers label a frame: the display name of a method (never NULL). */
typedef const char *(*jp_method_namer)(void *context, MethodID method);

/* Where a method's source is: its file ("java/lang/String.java", the package's directories and the
 * class's SourceFile) and, in *first_line, the first line of its line table; NULL and 0 when the
 * VM does not say (or the frame is no method). */
typedef const char *(*jp_method_sourcer)(void *context, MethodID method, unsigned long *first_line);

/* The source line of a method's frame at a bytecode offset (JEVMON_NO_PC_OFFSET: none known, then
 * its first line); 0 when the VM does not say (or the frame is no method). */
typedef unsigned long (*jp_method_liner)(void *context, MethodID method, DWORD offset);

/*
 * What a frame is, as far as is known (the flame graph's colours, named by flame.c's table of
 * kinds).  MethodInformation's execution model is a method's default, not what a sample found
 * (the bridge says interpreted for every Java method, also for code the JIT compiled long ago),
 * so a Java method is JAVA unless a sample says how its frame ran.
 */
typedef enum jp_frame_kind {
    JP_FRAME_OTHER = 0,   /* not a method (an unknown caller, a thread state) */
    JP_FRAME_JAVA,        /* a Java method; how its frames ran is not known */
    JP_FRAME_INTERPRETED, /* a sample found it in the interpreter */
    JP_FRAME_COMPILED,    /* a sample found it in code the JIT compiled */
    JP_FRAME_INLINED,     /* a sample found it inlined into another method's compiled code */
    JP_FRAME_NATIVE,      /* a native method (MethodInformation: JVM_EXECUTION_NATIVE) */
    JP_FRAME_VM,          /* the VM's own (JVM_EXECUTION_COM) */
    JP_FRAME_CLASS,       /* an allocated class (alloc mode) */
    JP_FRAME_C_CODE,      /* native code: a library's function (native.h) */
    JP_FRAME_THREAD,      /* a thread with no Java frame, at its samples' root (native.h) */
    JP_FRAME_KERNEL,      /* the kernel's code: a system call, a page fault ("function_[k]", native.h) */
    JP_FRAME_KINDS        /* how many there are */
} jp_frame_kind;
typedef jp_frame_kind (*jp_method_kinder)(void *context, MethodID method);

#endif /* JEVPROF_JAVANAME_H */
