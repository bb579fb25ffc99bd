/* value.c - widening Java values to __int64 (see value.h). */
#include <stdint.h>
#include <string.h>

#include "ids/object.h"
#include "ids/value.h"

int jv_type_is_reference(char type)
{
    return type == 'L' || type == '[';
}

__int64 jv_value_widen(JNIEnv *env, char type, jvalue v)
{
    uint32_t float_bits;
    uint64_t double_bits;
    switch (type) {
    case 'Z':
        return v.z ? 1 : 0;
    case 'B':
        return v.b;
    case 'C':
        return v.c;
    case 'S':
        return v.s;
    case 'I':
        return v.i;
    case 'J':
        return v.j;
    case 'F':
        memcpy(&float_bits, &v.f, sizeof(float_bits));
        return (__int64)float_bits;
    case 'D':
        memcpy(&double_bits, &v.d, sizeof(double_bits));
        return (__int64)double_bits;
    default:
        return (__int64)jv_object_id(env, v.l);
    }
}
