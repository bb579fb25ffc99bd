/*
 * idinfo_pending.c - IDInfo methods not implemented yet: each returns E_NOTIMPL and is listed in
 * the compatibility table of README.md.  Methods move out of this file as they are implemented.
 */
#include "idinfo_methods.h"

HRESULT STDMETHODCALLTYPE idinfo_GetMonitorUsage(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, ThreadID *powner_thread, unsigned *pentry_count, unsigned *pwaiter_count)
{
    (void)iface, (void)object_id, (void)powner_thread, (void)pentry_count, (void)pwaiter_count;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_DescribeObject(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, LPWSTR *pdescr)
{
    (void)iface, (void)object_id, (void)pdescr;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_FieldInformation(IJavaEventMonitorIDInfo4 *iface, FieldID field_id, LPSTR *pname, DWORD *pflags)
{
    (void)iface, (void)field_id, (void)pname, (void)pflags;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_FreeHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned int nhandles, ObjectHandleID *pobject_handles)
{
    (void)iface, (void)nhandles, (void)pobject_handles;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetArrayElement(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, unsigned index, __int64 *pvalue)
{
    (void)iface, (void)object_id, (void)index, (void)pvalue;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetClassFields(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, unsigned *pnfields, FieldID **ppfield_ids)
{
    (void)iface, (void)class_id, (void)pnfields, (void)ppfield_ids;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetClassPath(IJavaEventMonitorIDInfo4 *iface, LPSTR *ppszClassPath)
{
    (void)iface, (void)ppszClassPath;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned nobjects, ObjectID *pobject_ids, ObjectHandleID *pobject_handles)
{
    (void)iface, (void)nobjects, (void)pobject_ids, (void)pobject_handles;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetObjectField(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, FieldID field_id, __int64 *pvalue)
{
    (void)iface, (void)object_id, (void)field_id, (void)pvalue;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetObjectSize(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, DWORD *psize)
{
    (void)iface, (void)object_id, (void)psize;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetObjectsFromHandles(IJavaEventMonitorIDInfo4 *iface, unsigned nhandles, ObjectHandleID *pobject_handles, ObjectID *pobject_ids)
{
    (void)iface, (void)nhandles, (void)pobject_handles, (void)pobject_ids;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_GetSpecialClassProperties(IJavaEventMonitorIDInfo4 *iface, unsigned *pnspecial_classes, ClassID **ppclass_ids, DWORD **ppclass_flags)
{
    (void)iface, (void)pnspecial_classes, (void)ppclass_ids, (void)ppclass_flags;
    return E_NOTIMPL;
}

HRESULT STDMETHODCALLTYPE idinfo_StaticClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, DWORD *pStaticDataSize, DWORD *pInstanceSize)
{
    (void)iface, (void)class_id, (void)pStaticDataSize, (void)pInstanceSize;
    return E_NOTIMPL;
}

