/*
 * test_activation.c - plat_create_instance on POSIX, CoCreateInstance's path through
 * HKCR\CLSID\{clsid}\InprocServer32 to a shared library: the class that works, every
 * step that can fail (with its HRESULT and a cause naming the CLSID), and
 * jevmon-regsvr registering and unregistering the fixture server.
 *
 * The fixtures are build/linux/fixtures/fx_server.so and fx_nogco.so, found through
 * $JEVMON_BUILD (build/linux) or, without it, from this program's own place
 * (build/linux/asan/tests/test_activation).
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <initguid.h>

#include "fx_server.h"
#include "common/guid.h"
#include "platform/platform.h"
#include "../support/testkit.h"
#include "support/as_nobody.h"

#define UNREGISTERED_TEXT "{0B5E1F2A-96C4-4C1B-9C0E-3F1D2A4B5C6D}"

static char build_dir[512], dir[256];
static char server_path[700], nogco_path[700], regsvr_path[700];

static void find_build_dir(void)
{
    char *env = plat_getenv("JEVMON_BUILD");
    if (env) {
        snprintf(build_dir, sizeof(build_dir), "%s", env);
        free(env);
        return;
    }
    char *self = plat_module_path((const void *)find_build_dir);
    ck_assert_ptr_nonnull(self);
    snprintf(build_dir, sizeof(build_dir), "%s", self);
    free(self);
    for (int i = 0; i < 3; i++) /* <build>/asan/tests/test_activation */
        *strrchr(build_dir, '/') = '\0';
}

static void setup(void)
{
    find_build_dir();
    snprintf(server_path, sizeof(server_path), "%s/fixtures/fx_server.so", build_dir);
    snprintf(nogco_path, sizeof(nogco_path), "%s/fixtures/fx_nogco.so", build_dir);
    snprintf(regsvr_path, sizeof(regsvr_path), "%s/jevmon-regsvr", build_dir);
    ck_assert_msg(access(server_path, R_OK) == 0, "%s missing: make -f Makefile %s", server_path, server_path);
    snprintf(dir, sizeof(dir), "/tmp/jevmon-test-activation-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof(path), "%s/system.reg", dir);
    setenv("JEVMON_REGISTRY_SYSTEM", path, 1);
    snprintf(path, sizeof(path), "%s/user.reg", dir);
    setenv("JEVMON_REGISTRY_USER", path, 1);
    unsetenv("JEVMON_REGISTRY_FILES");
}

static void teardown(void)
{
    char command[300];
    snprintf(command, sizeof(command), "rm -rf '%s'", dir); /* with what nobody made in it */
    ck_assert_int_eq(system(command), 0);
}

static CLSID clsid_of(const char *text)
{
    CLSID clsid;
    ck_assert(jv_guid_parse(text, &clsid));
    return clsid;
}

static void register_server(const char *clsid_text, const char *server)
{
    char key[128];
    snprintf(key, sizeof(key), "CLSID\\%s\\InprocServer32", clsid_text);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, key, NULL, server), PLAT_REG_OK);
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, key, "ThreadingModel", "Both"), PLAT_REG_OK);
}

/* Factories and objects alive in the fixture (loaded by then: the same library, by the same path). */
static LONG live_in_fixture(void)
{
    void *library = dlopen(server_path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_ptr_nonnull(library);
    void *symbol = dlsym(library, "FxServerLiveCount");
    ck_assert_ptr_nonnull(symbol);
    fx_server_live_count_fn live_count;
    memcpy(&live_count, &symbol, sizeof(symbol));
    LONG n = live_count();
    dlclose(library);
    return n;
}

/* Creating clsid_text for iid fails with hr, *ppv NULL and a cause naming the CLSID and containing cause. */
static void assert_fails(const char *clsid_text, const IID *iid, HRESULT hr, const char *cause)
{
    CLSID clsid = clsid_of(clsid_text);
    void *object = (void *)&clsid; /* must be cleared */
    char why[512] = "stale";
    HRESULT got = plat_create_instance(&clsid, iid, &object, why, sizeof(why));
    ck_assert_msg(got == hr, "%s: hr=0x%08X, expected 0x%08X (%s)", clsid_text, (unsigned)got, (unsigned)hr, why);
    ck_assert_ptr_null(object);
    ck_assert_msg(strstr(why, clsid_text) != NULL, "the cause does not name the CLSID: %s", why);
    ck_assert_msg(strstr(why, cause) != NULL, "the cause lacks \"%s\": %s", cause, why);
}

/* ---- The class that works --------------------------------------------------------------- */

START_TEST(creates_an_object_through_the_registry)
{
    register_server(FX_SERVER_TEXT, server_path);
    IFxThing *thing = NULL;
    char why[256] = "stale";
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IFxThing, (void **)&thing, why, sizeof(why)), S_OK);
    ck_assert_ptr_nonnull(thing);
    ck_assert_str_eq(why, "");
    DWORD answer = 0;
    ck_assert_int_eq(thing->lpVtbl->GetAnswer(thing, &answer), S_OK);
    ck_assert_uint_eq(answer, 42);
    ck_assert_int_eq(live_in_fixture(), 1); /* the object, and no factory: it was released */
    ck_assert_uint_eq(thing->lpVtbl->Release(thing), 0);
    ck_assert_int_eq(live_in_fixture(), 0);
}
END_TEST

START_TEST(creates_for_iunknown_and_twice)
{
    register_server(FX_SERVER_TEXT, server_path);
    IUnknown *first = NULL, *second = NULL;
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IUnknown, (void **)&first, NULL, 0), S_OK);
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IUnknown, (void **)&second, NULL, 0), S_OK);
    ck_assert_ptr_ne(first, second);
    ck_assert_int_eq(live_in_fixture(), 2);
    IUnknown_Release(first);
    IUnknown_Release(second);
    ck_assert_int_eq(live_in_fixture(), 0);
}
END_TEST

START_TEST(user_classes_win_over_machine_classes)
{
    register_server(FX_SERVER_TEXT, "/nowhere/machine.so");
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCU, "Software\\Classes\\CLSID\\" FX_SERVER_TEXT "\\InprocServer32",
                                         NULL, server_path),
                     PLAT_REG_OK);
    IUnknown *object = NULL;
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IUnknown, (void **)&object, NULL, 0), S_OK);
    IUnknown_Release(object);
}
END_TEST

/* ---- Every failure ------------------------------------------------------------------------ */

START_TEST(unknown_clsid_is_not_registered)
{
    assert_fails(UNREGISTERED_TEXT, &IID_IUnknown, REGDB_E_CLASSNOTREG, "not registered");
}
END_TEST

START_TEST(clsid_without_inprocserver32)
{
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, "CLSID\\" UNREGISTERED_TEXT, NULL, "a class"), PLAT_REG_OK);
    assert_fails(UNREGISTERED_TEXT, &IID_IUnknown, REGDB_E_CLASSNOTREG, "InprocServer32");
}
END_TEST

START_TEST(inprocserver32_without_default_value)
{
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKCR, "CLSID\\" UNREGISTERED_TEXT "\\InprocServer32", "ThreadingModel",
                                         "Both"),
                     PLAT_REG_OK);
    assert_fails(UNREGISTERED_TEXT, &IID_IUnknown, REGDB_E_CLASSNOTREG, "InprocServer32");
}
END_TEST

START_TEST(inprocserver32_not_a_string)
{
    ck_assert_int_eq(plat_reg_set_dword(PLAT_HKCR, "CLSID\\" UNREGISTERED_TEXT "\\InprocServer32", NULL, 1),
                     PLAT_REG_OK);
    assert_fails(UNREGISTERED_TEXT, &IID_IUnknown, REGDB_E_CLASSNOTREG, "not a string");
}
END_TEST

START_TEST(relative_server_path)
{
    register_server(FX_SERVER_TEXT, "fixtures/fx_server.so");
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, CO_E_DLLNOTFOUND, "relative path: fixtures/fx_server.so");
}
END_TEST

START_TEST(server_file_missing)
{
    char missing[400];
    snprintf(missing, sizeof(missing), "%s/no-such-server.so", dir);
    register_server(FX_SERVER_TEXT, missing);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, CO_E_DLLNOTFOUND, "No such file or directory");
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, CO_E_DLLNOTFOUND, missing);
}
END_TEST

START_TEST(server_not_loadable)
{
    char text_file[400];
    snprintf(text_file, sizeof(text_file), "%s/not-a-library.so", dir);
    FILE *f = fopen(text_file, "w");
    fputs("this is a text file, not a shared library\n", f);
    fclose(f);
    chmod(text_file, 0644); /* whatever the umask: a group-writable file is refused before dlopen */
    register_server(FX_SERVER_TEXT, text_file);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, CO_E_ERRORINDLL, "cannot be loaded");
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, CO_E_ERRORINDLL, "not-a-library.so"); /* dlerror's text */
}
END_TEST

/* A copy of the fixture server in the test's directory, with the given mode; its path in copy. */
static void copy_server(char *copy, size_t size, mode_t mode)
{
    snprintf(copy, size, "%s/copied-server.so", dir);
    unlink(copy);
    char *bytes = tk_read_file(server_path);
    FILE *f = fopen(copy, "wb");
    ck_assert_ptr_nonnull(bytes);
    ck_assert_ptr_nonnull(f);
    struct stat st;
    ck_assert_int_eq(stat(server_path, &st), 0);
    ck_assert_uint_eq(fwrite(bytes, 1, (size_t)st.st_size, f), (size_t)st.st_size);
    fclose(f);
    free(bytes);
    ck_assert_int_eq(chmod(copy, mode), 0);
    register_server(FX_SERVER_TEXT, copy);
}

START_TEST(server_is_a_fifo)
{
    char fifo[400];
    snprintf(fifo, sizeof(fifo), "%s/fifo.so", dir);
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    register_server(FX_SERVER_TEXT, fifo); /* dlopen would block in open() for ever */
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, "fifo.so refused: it is not a regular file");
}
END_TEST

START_TEST(server_is_a_directory)
{
    register_server(FX_SERVER_TEXT, dir);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, "refused: it is not a regular file");
}
END_TEST

START_TEST(server_writable_by_others)
{
    char copy[400];
    copy_server(copy, sizeof(copy), 0757);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, "copied-server.so refused: other users can write it (mode 0757");
    ck_assert_int_eq(chmod(copy, 0775), 0);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, "other users can write it (mode 0775");
    ck_assert_int_eq(chmod(copy, 0755), 0); /* the same file, once only its owner can write it, loads */
    IUnknown *object = NULL;
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IUnknown, (void **)&object, NULL, 0), S_OK);
    IUnknown_Release(object);
}
END_TEST

START_TEST(server_in_a_directory_writable_by_others)
{
    char copy[400], lib[300], moved[320];
    copy_server(copy, sizeof(copy), 0755);
    snprintf(lib, sizeof(lib), "%s/lib", dir); /* not the registry's directory, refused as well */
    ck_assert_int_eq(mkdir(lib, 0777), 0);
    snprintf(moved, sizeof(moved), "%s/copied-server.so", lib);
    ck_assert_int_eq(rename(copy, moved), 0);
    register_server(FX_SERVER_TEXT, moved);
    ck_assert_int_eq(chmod(lib, 0777), 0);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, "refused: the directory");
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, "other users can write it (mode 0777");
    ck_assert_int_eq(chmod(lib, 01777), 0); /* sticky, as /tmp: only the file's owner can replace it */
    IUnknown *object = NULL;
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IUnknown, (void **)&object, NULL, 0), S_OK);
    IUnknown_Release(object);
}
END_TEST

/* A copy of the fixture server, root's (0755), at path, registered. */
static void copy_server_to(const char *path)
{
    char copy[400];
    copy_server(copy, sizeof(copy), 0755);
    ck_assert_int_eq(rename(copy, path), 0);
    register_server(FX_SERVER_TEXT, path);
}

/* A race: root's library in root's directory sub, but sub sits in a directory anyone can
 * write (nobody's, 0777), where nobody can swap sub between the check and dlopen. */
START_TEST(server_below_a_directory_others_can_write)
{
    char pub[300], shared[320], sub[340], library[360];
    if (!as_nobody_possible())
        return;
    as_nobody_public_dir(dir, pub, sizeof(pub));
    as_nobody_shared_dir(pub, shared, sizeof(shared));
    snprintf(sub, sizeof(sub), "%s/sub", shared);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(library, sizeof(library), "%s/mon.so", sub);
    copy_server_to(library);
    char cause[400];
    snprintf(cause, sizeof(cause), "refused: the directory %s on its path: other users can write it (mode 0777", shared);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, cause);
}
END_TEST

/* A link nobody made, in a sticky directory, to root's good library: nobody can point it elsewhere. */
START_TEST(server_through_a_link_of_another_user)
{
    char pub[300], link[320];
    if (!as_nobody_possible())
        return;
    as_nobody_public_dir(dir, pub, sizeof(pub));
    snprintf(link, sizeof(link), "%s/link.so", pub);
    as_nobody_symlink(server_path, link);
    register_server(FX_SERVER_TEXT, link);
    char cause[400];
    snprintf(cause, sizeof(cause), "refused: symbolic link %s: it belongs to uid 65534", link);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, cause);
}
END_TEST

/* Root's link, in root's directory, to root's library in a directory nobody can write: the
 * loader follows the link, so the directories of its target are checked too. */
START_TEST(server_link_into_a_directory_others_can_write)
{
    char pub[300], shared[320], library[340], link[320];
    if (!as_nobody_possible())
        return;
    as_nobody_public_dir(dir, pub, sizeof(pub));
    as_nobody_shared_dir(pub, shared, sizeof(shared));
    snprintf(library, sizeof(library), "%s/mon.so", shared);
    copy_server_to(library);
    snprintf(link, sizeof(link), "%s/link.so", dir);
    ck_assert_int_eq(symlink(library, link), 0);
    register_server(FX_SERVER_TEXT, link);
    char cause[400];
    snprintf(cause, sizeof(cause), "refused: the directory %s on its path: other users can write it (mode 0777", shared);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, cause);
}
END_TEST

/* Links of root's or this user's, absolute or relative, through "..", to a trusted library load it. */
START_TEST(server_through_trusted_links_loads)
{
    char link[320], relative[320], target[400];
    snprintf(link, sizeof(link), "%s/absolute.so", dir);
    ck_assert_int_eq(symlink(server_path, link), 0);
    snprintf(relative, sizeof(relative), "%s/relative.so", dir);
    snprintf(target, sizeof(target), "../%s/absolute.so", strrchr(dir, '/') + 1);
    ck_assert_int_eq(symlink(target, relative), 0);
    register_server(FX_SERVER_TEXT, relative);
    IUnknown *object = NULL;
    char why[512] = "";
    ck_assert_msg(plat_create_instance(&CLSID_FxServer, &IID_IUnknown, (void **)&object, why, sizeof(why)) == S_OK,
                  "%s", why);
    IUnknown_Release(object);
    /* Loaded from its descriptor, the library is the one at its path to the loader too. */
    void *same = dlopen(server_path, RTLD_NOW | RTLD_NOLOAD);
    ck_assert_ptr_nonnull(same);
    dlclose(same);
}
END_TEST

START_TEST(server_owned_by_another_user)
{
    char copy[400];
    if (geteuid() != 0)
        return; /* only root can give a file away */
    copy_server(copy, sizeof(copy), 0755);
    ck_assert_int_eq(chown(copy, 65534, 65534), 0);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, E_ACCESSDENIED, "refused: it belongs to uid 65534, neither root nor this user");
}
END_TEST

START_TEST(server_without_dllgetclassobject)
{
    register_server(FX_SERVER_TEXT, nogco_path);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, CO_E_ERRORINDLL, "has no DllGetClassObject");
}
END_TEST

START_TEST(class_factory_refused)
{
    register_server(FX_SERVER_NO_FACTORY_TEXT, server_path);
    assert_fails(FX_SERVER_NO_FACTORY_TEXT, &IID_IUnknown, CLASS_E_CLASSNOTAVAILABLE,
                 "DllGetClassObject of /");
}
END_TEST

START_TEST(class_factory_missing_despite_success)
{
    register_server(FX_SERVER_NULL_FACTORY_TEXT, server_path);
    assert_fails(FX_SERVER_NULL_FACTORY_TEXT, &IID_IUnknown, E_UNEXPECTED, "without a factory");
}
END_TEST

START_TEST(create_instance_fails)
{
    register_server(FX_SERVER_CREATE_FAILS_TEXT, server_path);
    assert_fails(FX_SERVER_CREATE_FAILS_TEXT, &IID_IUnknown, E_OUTOFMEMORY, "CreateInstance");
    ck_assert_int_eq(live_in_fixture(), 0); /* the factory was released */
}
END_TEST

START_TEST(create_instance_returns_no_object)
{
    register_server(FX_SERVER_NULL_OBJECT_TEXT, server_path);
    assert_fails(FX_SERVER_NULL_OBJECT_TEXT, &IID_IUnknown, E_UNEXPECTED, "without an object");
    ck_assert_int_eq(live_in_fixture(), 0);
}
END_TEST

START_TEST(object_without_the_interface)
{
    char iid_text[JV_GUID_TEXT_SIZE];
    register_server(FX_SERVER_TEXT, server_path);
    assert_fails(FX_SERVER_TEXT, &IID_IJavaEventMonitor, E_NOINTERFACE, "no such interface");
    assert_fails(FX_SERVER_TEXT, &IID_IJavaEventMonitor, E_NOINTERFACE, jv_guid_format(&IID_IJavaEventMonitor, iid_text));
    ck_assert_int_eq(live_in_fixture(), 0); /* the object made for the query was released */
}
END_TEST

START_TEST(refused_registry_file)
{
    register_server(FX_SERVER_TEXT, server_path);
    ck_assert_int_eq(chmod(getenv("JEVMON_REGISTRY_SYSTEM"), 0666), 0);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, REGDB_E_READREGDB, "could not be read");
}
END_TEST

START_TEST(null_arguments)
{
    void *object;
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IUnknown, NULL, NULL, 0), E_POINTER);
    ck_assert_int_eq(plat_create_instance(NULL, &IID_IUnknown, &object, NULL, 0), E_POINTER);
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, NULL, &object, NULL, 0), E_POINTER);
}
END_TEST

/* ---- jevmon-regsvr ------------------------------------------------------------------------ */

/* Exit status of jevmon-regsvr with args (its output goes to the test's output). */
static int run_regsvr(const char *args)
{
    char command[2048];
    ck_assert_msg(access(regsvr_path, X_OK) == 0, "%s missing: make -f Makefile %s", regsvr_path, regsvr_path);
    snprintf(command, sizeof(command), "'%s' %s", regsvr_path, args);
    int status = system(command);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(regsvr_registers_and_unregisters)
{
    char args[800];
    snprintf(args, sizeof(args), "'%s'", server_path);
    ck_assert_int_eq(run_regsvr(args), 0);
    IFxThing *thing = NULL;
    ck_assert_int_eq(plat_create_instance(&CLSID_FxServer, &IID_IFxThing, (void **)&thing, NULL, 0), S_OK);
    thing->lpVtbl->Release(thing);
    snprintf(args, sizeof(args), "-u '%s'", server_path);
    ck_assert_int_eq(run_regsvr(args), 0);
    assert_fails(FX_SERVER_TEXT, &IID_IUnknown, REGDB_E_CLASSNOTREG, "not registered");
}
END_TEST

START_TEST(regsvr_refuses_what_it_cannot_use)
{
    char args[800];
    snprintf(args, sizeof(args), "'%s'", nogco_path); /* no DllRegisterServer */
    ck_assert_int_eq(run_regsvr(args), 1);
    snprintf(args, sizeof(args), "'%s/missing.so'", dir);
    ck_assert_int_eq(run_regsvr(args), 1);
    ck_assert_int_eq(run_regsvr(""), 2);
    ck_assert_int_eq(run_regsvr("-x file.so"), 2);
    snprintf(args, sizeof(args), "-u '%s' extra", server_path);
    ck_assert_int_eq(run_regsvr(args), 2);
    /* A registration that fails is a failure: here the registry file is refused. */
    ck_assert_int_eq(plat_reg_set_string(PLAT_HKLM, "K", "v", "x"), PLAT_REG_OK);
    ck_assert_int_eq(chmod(getenv("JEVMON_REGISTRY_SYSTEM"), 0666), 0);
    snprintf(args, sizeof(args), "'%s'", server_path);
    ck_assert_int_eq(run_regsvr(args), 1);
}
END_TEST

static void quiet(const char *line, void *context)
{
    (void)line, (void)context;
}

static void setup_quiet(void)
{
    setup();
    jv_log_set_sink(quiet, NULL); /* refusals are logged; the tests check what the calls return */
}

static void teardown_quiet(void)
{
    jv_log_set_sink(NULL, NULL);
    teardown();
}

static Suite *activation_suite(void)
{
    Suite *s = suite_create("activation");
    TCase *works = tcase_create("works");
    tcase_add_checked_fixture(works, setup_quiet, teardown_quiet);
    tcase_add_test(works, creates_an_object_through_the_registry);
    tcase_add_test(works, creates_for_iunknown_and_twice);
    tcase_add_test(works, user_classes_win_over_machine_classes);
    suite_add_tcase(s, works);

    TCase *fails = tcase_create("fails");
    tcase_add_checked_fixture(fails, setup_quiet, teardown_quiet);
    tcase_add_test(fails, unknown_clsid_is_not_registered);
    tcase_add_test(fails, clsid_without_inprocserver32);
    tcase_add_test(fails, inprocserver32_without_default_value);
    tcase_add_test(fails, inprocserver32_not_a_string);
    tcase_add_test(fails, relative_server_path);
    tcase_add_test(fails, server_file_missing);
    tcase_add_test(fails, server_not_loadable);
    tcase_add_test(fails, server_is_a_fifo);
    tcase_add_test(fails, server_is_a_directory);
    tcase_add_test(fails, server_writable_by_others);
    tcase_add_test(fails, server_in_a_directory_writable_by_others);
    tcase_add_test(fails, server_owned_by_another_user);
    tcase_add_test(fails, server_below_a_directory_others_can_write);
    tcase_add_test(fails, server_through_a_link_of_another_user);
    tcase_add_test(fails, server_link_into_a_directory_others_can_write);
    tcase_add_test(fails, server_through_trusted_links_loads);
    tcase_add_test(fails, server_without_dllgetclassobject);
    tcase_add_test(fails, class_factory_refused);
    tcase_add_test(fails, class_factory_missing_despite_success);
    tcase_add_test(fails, create_instance_fails);
    tcase_add_test(fails, create_instance_returns_no_object);
    tcase_add_test(fails, object_without_the_interface);
    tcase_add_test(fails, refused_registry_file);
    tcase_add_test(fails, null_arguments);
    suite_add_tcase(s, fails);

    TCase *regsvr = tcase_create("regsvr");
    tcase_add_checked_fixture(regsvr, setup_quiet, teardown_quiet);
    tcase_add_test(regsvr, regsvr_registers_and_unregisters);
    tcase_add_test(regsvr, regsvr_refuses_what_it_cannot_use);
    suite_add_tcase(s, regsvr);
    return s;
}

int main(void)
{
    return tk_run_suite(activation_suite());
}
