"""Chapter 00 — ``Array``: printing, conversions, metadata and NumPy interop.

Every expected string and value here was produced by JAX 0.10.2 (x64 off) and
is written down literally: ``repr`` and ``str`` must match JAX character for
character, including where the line wraps and where ``dtype=`` goes.
"""
import copy
import operator
import pickle

import numpy as np
import pytest

import minijax
import minijax.numpy as jnp

REPR_CASES = [
    # (expression, repr, str) -- expected values from JAX 0.10.2
    ('jnp.asarray(np.array(True))',
     'Array(True, dtype=bool)',
     'True'),
    ('jnp.asarray(np.array(False))',
     'Array(False, dtype=bool)',
     'False'),
    ('jnp.asarray(np.array(-3, np.int8))',
     'Array(-3, dtype=int8)',
     '-3'),
    ('jnp.asarray(np.array(7, np.int16))',
     'Array(7, dtype=int16)',
     '7'),
    ('jnp.asarray(np.array(7, np.int32))',
     'Array(7, dtype=int32)',
     '7'),
    ('jnp.asarray(np.array(200, np.uint8))',
     'Array(200, dtype=uint8)',
     '200'),
    ('jnp.asarray(np.array(7, np.uint16))',
     'Array(7, dtype=uint16)',
     '7'),
    ('jnp.asarray(np.array(4000000000, np.uint32))',
     'Array(4000000000, dtype=uint32)',
     '4000000000'),
    ('jnp.asarray(np.array(1.5, np.float16))',
     'Array(1.5, dtype=float16)',
     '1.5'),
    ('jnp.asarray(np.array(1.5, np.float32))',
     'Array(1.5, dtype=float32)',
     '1.5'),
    ('jnp.asarray(np.array(1.0, np.float32))',
     'Array(1., dtype=float32)',
     '1.0'),
    ('jnp.asarray(np.array(0.1, np.float32))',
     'Array(0.1, dtype=float32)',
     '0.1'),
    ('jnp.asarray(np.array(1 - 2j, np.complex64))',
     'Array(1.-2.j, dtype=complex64)',
     '(1-2j)'),
    ('jnp.asarray(2)',
     'Array(2, dtype=int32, weak_type=True)',
     '2'),
    ('jnp.asarray(-2)',
     'Array(-2, dtype=int32, weak_type=True)',
     '-2'),
    ('jnp.asarray(2.0)',
     'Array(2., dtype=float32, weak_type=True)',
     '2.0'),
    ('jnp.asarray(2.5)',
     'Array(2.5, dtype=float32, weak_type=True)',
     '2.5'),
    ('jnp.asarray(1e-8)',
     'Array(1.e-08, dtype=float32, weak_type=True)',
     '1e-08'),
    ('jnp.asarray(1e30)',
     'Array(1.e+30, dtype=float32, weak_type=True)',
     '1e+30'),
    ('jnp.asarray(1 + 2j)',
     'Array(1.+2.j, dtype=complex64, weak_type=True)',
     '(1+2j)'),
    ('jnp.asarray(2j)',
     'Array(0.+2.j, dtype=complex64, weak_type=True)',
     '2j'),
    ('jnp.asarray(True)',
     'Array(True, dtype=bool)',
     'True'),
    ("jnp.asarray(float('nan'))",
     'Array(nan, dtype=float32, weak_type=True)',
     'nan'),
    ("jnp.asarray(float('inf'))",
     'Array(inf, dtype=float32, weak_type=True)',
     'inf'),
    ("jnp.asarray(-float('inf'))",
     'Array(-inf, dtype=float32, weak_type=True)',
     '-inf'),
    ('jnp.asarray(np.float32(3.14159274))',
     'Array(3.1415927, dtype=float32)',
     '3.1415927'),
    ('jnp.asarray(np.array(123456789.0, np.float32))',
     'Array(1.2345679e+08, dtype=float32)',
     '1.2345679e+08'),
    ('jnp.asarray(np.array(65504, np.float16))',
     'Array(6.55e+04, dtype=float16)',
     '6.55e+04'),
    ('jnp.array([1, 2, 3])',
     'Array([1, 2, 3], dtype=int32)',
     '[1 2 3]'),
    ('jnp.array([1.0, 2.0, 3.0])',
     'Array([1., 2., 3.], dtype=float32)',
     '[1. 2. 3.]'),
    ('jnp.array([1.5, -2.25, 3.0])',
     'Array([ 1.5 , -2.25,  3.  ], dtype=float32)',
     '[ 1.5  -2.25  3.  ]'),
    ('jnp.array([0.1, 0.2, 0.3])',
     'Array([0.1, 0.2, 0.3], dtype=float32)',
     '[0.1 0.2 0.3]'),
    ('jnp.array([True, False, True])',
     'Array([ True, False,  True], dtype=bool)',
     '[ True False  True]'),
    ('jnp.array([1 + 2j, -3.5j])',
     'Array([ 1.+2.j , -0.-3.5j], dtype=complex64)',
     '[ 1.+2.j  -0.-3.5j]'),
    ('jnp.array([[1, 2], [3, 4]])',
     'Array([[1, 2],\n       [3, 4]], dtype=int32)',
     '[[1 2]\n [3 4]]'),
    ('jnp.array([[1.0, 2.5], [-3.0, 4.0]])',
     'Array([[ 1. ,  2.5],\n       [-3. ,  4. ]], dtype=float32)',
     '[[ 1.   2.5]\n [-3.   4. ]]'),
    ('jnp.array([[True, False], [False, True]])',
     'Array([[ True, False],\n       [False,  True]], dtype=bool)',
     '[[ True False]\n [False  True]]'),
    ('jnp.asarray(np.arange(24).reshape(2, 3, 4))',
     'Array([[[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]],\n\n       [[12, 13, 14, 15],\n        [16, 17, 18, 19],\n        [20, 21, 22, 23]]], dtype=int32)',
     '[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]'),
    ('jnp.asarray(np.arange(24.0).reshape(2, 3, 4))',
     'Array([[[ 0.,  1.,  2.,  3.],\n        [ 4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11.]],\n\n       [[12., 13., 14., 15.],\n        [16., 17., 18., 19.],\n        [20., 21., 22., 23.]]], dtype=float32)',
     '[[[ 0.  1.  2.  3.]\n  [ 4.  5.  6.  7.]\n  [ 8.  9. 10. 11.]]\n\n [[12. 13. 14. 15.]\n  [16. 17. 18. 19.]\n  [20. 21. 22. 23.]]]'),
    ('jnp.asarray(np.arange(8, dtype=np.float32).reshape(2, 2, 2) / 3)',
     'Array([[[0.        , 0.33333334],\n        [0.6666667 , 1.        ]],\n\n       [[1.3333334 , 1.6666666 ],\n        [2.        , 2.3333333 ]]], dtype=float32)',
     '[[[0.         0.33333334]\n  [0.6666667  1.        ]]\n\n [[1.3333334  1.6666666 ]\n  [2.         2.3333333 ]]]'),
    ('jnp.asarray(np.arange(30))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29], dtype=int32)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29]'),
    ('jnp.asarray(np.arange(30.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n       26., 27., 28., 29.], dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]'),
    ('jnp.asarray(np.arange(12.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],      dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11.]'),
    ('jnp.asarray(np.arange(14.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13.], dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13.]'),
    ('jnp.asarray(np.arange(15.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14.], dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14.]'),
    ('jnp.asarray(np.arange(16.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15.], dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15.]'),
    ('jnp.asarray(np.arange(17.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16.], dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16.]'),
    ('jnp.asarray(np.arange(18.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16., 17.], dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.]'),
    ('jnp.asarray(np.arange(100))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,\n       34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,\n       51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67,\n       68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84,\n       85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99],      dtype=int32)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47\n 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71\n 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95\n 96 97 98 99]'),
    ('jnp.asarray(np.arange(10, dtype=np.int8))',
     'Array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=int8)',
     '[0 1 2 3 4 5 6 7 8 9]'),
    ('jnp.asarray(np.arange(20, dtype=np.int8))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19], dtype=int8)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19]'),
    ('jnp.asarray(np.arange(22, dtype=np.int8))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21], dtype=int8)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21]'),
    ('jnp.asarray(np.arange(23, dtype=np.int8))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22], dtype=int8)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22]'),
    ('jnp.asarray(np.arange(24, dtype=np.int8))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23], dtype=int8)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23]'),
    ('jnp.asarray(np.arange(25, dtype=np.int8))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23, 24], dtype=int8)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24]'),
    ('jnp.asarray(np.arange(21, dtype=np.uint8))',
     'Array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20], dtype=uint8)',
     '[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20]'),
    ('jnp.asarray(np.arange(5000))',
     'Array([   0,    1,    2, ..., 4997, 4998, 4999], dtype=int32)',
     '[   0    1    2 ... 4997 4998 4999]'),
    ('jnp.asarray(np.arange(2000.0))',
     'Array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], dtype=float32)',
     '[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]'),
    ('jnp.asarray(np.arange(1001.0))',
     'Array([   0.,    1.,    2., ...,  998.,  999., 1000.], dtype=float32)',
     '[   0.    1.    2. ...  998.  999. 1000.]'),
    ('jnp.asarray(np.arange(3000).reshape(30, 100))',
     'Array([[   0,    1,    2, ...,   97,   98,   99],\n       [ 100,  101,  102, ...,  197,  198,  199],\n       [ 200,  201,  202, ...,  297,  298,  299],\n       ...,\n       [2700, 2701, 2702, ..., 2797, 2798, 2799],\n       [2800, 2801, 2802, ..., 2897, 2898, 2899],\n       [2900, 2901, 2902, ..., 2997, 2998, 2999]], dtype=int32)',
     '[[   0    1    2 ...   97   98   99]\n [ 100  101  102 ...  197  198  199]\n [ 200  201  202 ...  297  298  299]\n ...\n [2700 2701 2702 ... 2797 2798 2799]\n [2800 2801 2802 ... 2897 2898 2899]\n [2900 2901 2902 ... 2997 2998 2999]]'),
    ('jnp.asarray(np.arange(20.0).reshape(4, 5) / 7)',
     'Array([[0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ],\n       [0.71428573, 0.85714287, 1.        , 1.1428572 , 1.2857143 ],\n       [1.4285715 , 1.5714285 , 1.7142857 , 1.8571428 , 2.        ],\n       [2.142857  , 2.2857144 , 2.4285715 , 2.5714285 , 2.7142856 ]],      dtype=float32)',
     '[[0.         0.14285715 0.2857143  0.42857143 0.5714286 ]\n [0.71428573 0.85714287 1.         1.1428572  1.2857143 ]\n [1.4285715  1.5714285  1.7142857  1.8571428  2.        ]\n [2.142857   2.2857144  2.4285715  2.5714285  2.7142856 ]]'),
    ('jnp.asarray(np.arange(40.0).reshape(2, 20))',
     'Array([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n        13., 14., 15., 16., 17., 18., 19.],\n       [20., 21., 22., 23., 24., 25., 26., 27., 28., 29., 30., 31., 32.,\n        33., 34., 35., 36., 37., 38., 39.]], dtype=float32)',
     '[[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n  18. 19.]\n [20. 21. 22. 23. 24. 25. 26. 27. 28. 29. 30. 31. 32. 33. 34. 35. 36. 37.\n  38. 39.]]'),
    ('jnp.asarray(np.arange(12.0).reshape(3, 4) * 1e10)',
     'Array([[0.0e+00, 1.0e+10, 2.0e+10, 3.0e+10],\n       [4.0e+10, 5.0e+10, 6.0e+10, 7.0e+10],\n       [8.0e+10, 9.0e+10, 1.0e+11, 1.1e+11]], dtype=float32)',
     '[[0.0e+00 1.0e+10 2.0e+10 3.0e+10]\n [4.0e+10 5.0e+10 6.0e+10 7.0e+10]\n [8.0e+10 9.0e+10 1.0e+11 1.1e+11]]'),
    ('jnp.asarray(np.linspace(0, 1, 11))',
     'Array([0. , 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1. ], dtype=float32)',
     '[0.  0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1. ]'),
    ('jnp.asarray(np.linspace(0, 1, 7))',
     'Array([0.        , 0.16666667, 0.33333334, 0.5       , 0.6666667 ,\n       0.8333333 , 1.        ], dtype=float32)',
     '[0.         0.16666667 0.33333334 0.5        0.6666667  0.8333333\n 1.        ]'),
    ('jnp.asarray(np.linspace(-1, 1, 25))',
     'Array([-1.        , -0.9166667 , -0.8333333 , -0.75      , -0.6666667 ,\n       -0.5833333 , -0.5       , -0.41666666, -0.33333334, -0.25      ,\n       -0.16666667, -0.08333334,  0.        ,  0.08333334,  0.16666667,\n        0.25      ,  0.33333334,  0.41666666,  0.5       ,  0.5833333 ,\n        0.6666667 ,  0.75      ,  0.8333333 ,  0.9166667 ,  1.        ],      dtype=float32)',
     '[-1.         -0.9166667  -0.8333333  -0.75       -0.6666667  -0.5833333\n -0.5        -0.41666666 -0.33333334 -0.25       -0.16666667 -0.08333334\n  0.          0.08333334  0.16666667  0.25        0.33333334  0.41666666\n  0.5         0.5833333   0.6666667   0.75        0.8333333   0.9166667\n  1.        ]'),
    ('jnp.asarray(np.zeros((0,)))',
     'Array([], shape=(0,), dtype=float32)',
     '[]'),
    ('jnp.asarray(np.zeros((0, 3)))',
     'Array([], shape=(0, 3), dtype=float32)',
     '[]'),
    ('jnp.asarray(np.zeros((2, 0), np.int32))',
     'Array([], shape=(2, 0), dtype=int32)',
     '[]'),
    ('jnp.asarray(np.zeros((0,), np.bool_))',
     'Array([], shape=(0,), dtype=bool)',
     '[]'),
    ('jnp.asarray(np.zeros((3, 0, 2), np.int8))',
     'Array([], shape=(3, 0, 2), dtype=int8)',
     '[]'),
    ('jnp.asarray(np.ones(3, np.bool_))',
     'Array([ True,  True,  True], dtype=bool)',
     '[ True  True  True]'),
    ('jnp.asarray(np.ones((2, 3), np.bool_))',
     'Array([[ True,  True,  True],\n       [ True,  True,  True]], dtype=bool)',
     '[[ True  True  True]\n [ True  True  True]]'),
    ('jnp.asarray(np.array([True, False] * 20))',
     'Array([ True, False,  True, False,  True, False,  True, False,  True,\n       False,  True, False,  True, False,  True, False,  True, False,\n        True, False,  True, False,  True, False,  True, False,  True,\n       False,  True, False,  True, False,  True, False,  True, False,\n        True, False,  True, False], dtype=bool)',
     '[ True False  True False  True False  True False  True False  True False\n  True False  True False  True False  True False  True False  True False\n  True False  True False  True False  True False  True False  True False\n  True False  True False]'),
    ('jnp.asarray(np.array([1e10, 1.0], np.float32))',
     'Array([1.e+10, 1.e+00], dtype=float32)',
     '[1.e+10 1.e+00]'),
    ('jnp.asarray(np.array([1e-10, 1.0], np.float32))',
     'Array([1.e-10, 1.e+00], dtype=float32)',
     '[1.e-10 1.e+00]'),
    ('jnp.asarray(np.array([1e20, -1e20], np.float32))',
     'Array([ 1.e+20, -1.e+20], dtype=float32)',
     '[ 1.e+20 -1.e+20]'),
    ('jnp.asarray(np.array([1e-5, 1e-3], np.float32))',
     'Array([1.e-05, 1.e-03], dtype=float32)',
     '[1.e-05 1.e-03]'),
    ('jnp.asarray(np.array([1e-4, 1e-3], np.float32))',
     'Array([0.0001, 0.001 ], dtype=float32)',
     '[0.0001 0.001 ]'),
    ('jnp.asarray(np.array([12345678.0, 1.0], np.float32))',
     'Array([1.2345678e+07, 1.0000000e+00], dtype=float32)',
     '[1.2345678e+07 1.0000000e+00]'),
    ('jnp.asarray(np.array([123456.0, 0.5], np.float32))',
     'Array([1.23456e+05, 5.00000e-01], dtype=float32)',
     '[1.23456e+05 5.00000e-01]'),
    ('jnp.asarray(np.array([1e8, 1.0], np.float32))',
     'Array([1.e+08, 1.e+00], dtype=float32)',
     '[1.e+08 1.e+00]'),
    ('jnp.asarray(np.array([1e7, 1.0], np.float32))',
     'Array([1.e+07, 1.e+00], dtype=float32)',
     '[1.e+07 1.e+00]'),
    ('jnp.asarray(np.array([1.0, 3e-38], np.float32))',
     'Array([1.e+00, 3.e-38], dtype=float32)',
     '[1.e+00 3.e-38]'),
    ('jnp.asarray(np.array([np.nan, 1.0, -np.inf, np.inf], np.float32))',
     'Array([ nan,   1., -inf,  inf], dtype=float32)',
     '[ nan   1. -inf  inf]'),
    ('jnp.asarray(np.array([np.nan, np.nan], np.float32))',
     'Array([nan, nan], dtype=float32)',
     '[nan nan]'),
    ('jnp.asarray(np.array([np.inf, 2.5], np.float32))',
     'Array([inf, 2.5], dtype=float32)',
     '[inf 2.5]'),
    ('jnp.asarray(np.array([np.nan + 1j, 1 - np.inf * 1j], np.complex64))',
     'Array([nan +1.j, nan-infj], dtype=complex64)',
     '[nan +1.j nan-infj]'),
    ('jnp.asarray(np.array([-128, 0, 127], np.int8))',
     'Array([-128,    0,  127], dtype=int8)',
     '[-128    0  127]'),
    ('jnp.asarray(np.array([0, 4294967295], np.uint32))',
     'Array([         0, 4294967295], dtype=uint32)',
     '[         0 4294967295]'),
    ('jnp.asarray(np.array([0, 65535], np.uint16))',
     'Array([    0, 65535], dtype=uint16)',
     '[    0 65535]'),
    ('jnp.asarray(np.array([-32768, 5], np.int16))',
     'Array([-32768,      5], dtype=int16)',
     '[-32768      5]'),
    ('jnp.asarray(np.array([-2147483648, 2147483647], np.int32))',
     'Array([-2147483648,  2147483647], dtype=int32)',
     '[-2147483648  2147483647]'),
    ('jnp.asarray(np.array([0.1, 65504, -1.5], np.float16))',
     'Array([ 1.00e-01,  6.55e+04, -1.50e+00], dtype=float16)',
     '[ 1.00e-01  6.55e+04 -1.50e+00]'),
    ('jnp.asarray(np.array([0.333, 1e-4], np.float16))',
     'Array([3.33e-01, 1.00e-04], dtype=float16)',
     '[3.33e-01 1.00e-04]'),
    ('jnp.asarray(np.arange(30, dtype=np.float16))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n       26., 27., 28., 29.], dtype=float16)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]'),
    ('jnp.asarray(np.array([1.5 + 2j, -0.25 - 1e5j], np.complex64))',
     'Array([ 1.5 +2.e+00j, -0.25-1.e+05j], dtype=complex64)',
     '[ 1.5 +2.e+00j -0.25-1.e+05j]'),
    ('jnp.asarray(np.arange(12, dtype=np.complex64).reshape(3, 4))',
     'Array([[ 0.+0.j,  1.+0.j,  2.+0.j,  3.+0.j],\n       [ 4.+0.j,  5.+0.j,  6.+0.j,  7.+0.j],\n       [ 8.+0.j,  9.+0.j, 10.+0.j, 11.+0.j]], dtype=complex64)',
     '[[ 0.+0.j  1.+0.j  2.+0.j  3.+0.j]\n [ 4.+0.j  5.+0.j  6.+0.j  7.+0.j]\n [ 8.+0.j  9.+0.j 10.+0.j 11.+0.j]]'),
    ('jnp.asarray(np.arange(10, dtype=np.complex64) * (1 + 1j))',
     'Array([0.+0.j, 1.+1.j, 2.+2.j, 3.+3.j, 4.+4.j, 5.+5.j, 6.+6.j, 7.+7.j,\n       8.+8.j, 9.+9.j], dtype=complex64)',
     '[0.+0.j 1.+1.j 2.+2.j 3.+3.j 4.+4.j 5.+5.j 6.+6.j 7.+7.j 8.+8.j 9.+9.j]'),
    ('jnp.asarray(np.array([[1e-10, 1.0], [2.0, 3.0]], np.float32))',
     'Array([[1.e-10, 1.e+00],\n       [2.e+00, 3.e+00]], dtype=float32)',
     '[[1.e-10 1.e+00]\n [2.e+00 3.e+00]]'),
    ('jnp.asarray(np.arange(6.0).reshape(1, 2, 3, 1))',
     'Array([[[[0.],\n         [1.],\n         [2.]],\n\n        [[3.],\n         [4.],\n         [5.]]]], dtype=float32)',
     '[[[[0.]\n   [1.]\n   [2.]]\n\n  [[3.]\n   [4.]\n   [5.]]]]'),
    ('jnp.asarray(np.arange(3.0)[:, None])',
     'Array([[0.],\n       [1.],\n       [2.]], dtype=float32)',
     '[[0.]\n [1.]\n [2.]]'),
    ('jnp.asarray(np.full((2, 2), 0.5, np.float32)) + 0',
     'Array([[0.5, 0.5],\n       [0.5, 0.5]], dtype=float32)',
     '[[0.5 0.5]\n [0.5 0.5]]'),
    ('jnp.asarray(np.arange(3.0, dtype=np.float32)) + 1.0',
     'Array([1., 2., 3.], dtype=float32)',
     '[1. 2. 3.]'),
    ('jnp.asarray(np.arange(4)) * 2.5',
     'Array([0. , 2.5, 5. , 7.5], dtype=float32, weak_type=True)',
     '[0.  2.5 5.  7.5]'),
    ('jnp.arange(3.) / 2',
     'Array([0. , 0.5, 1. ], dtype=float32)',
     '[0.  0.5 1. ]'),
]

PRINTOPTIONS_CASES = [
    # (np.printoptions, expression, repr, str) -- expected values from JAX 0.10.2
    ({'precision': 2}, 'jnp.asarray(np.linspace(0, 1, 7))',
     'Array([0.  , 0.17, 0.33, 0.5 , 0.67, 0.83, 1.  ], dtype=float32)',
     '[0.   0.17 0.33 0.5  0.67 0.83 1.  ]'),
    ({'precision': 2}, 'jnp.asarray(np.array([np.pi, 1e-9], np.float32))',
     'Array([3.14e+00, 1.00e-09], dtype=float32)',
     '[3.14e+00 1.00e-09]'),
    ({'linewidth': 40}, 'jnp.asarray(np.arange(20.0))',
     'Array([ 0.,  1.,  2.,  3.,  4.,  5.,\n        6.,  7.,  8.,  9., 10., 11.,\n       12., 13., 14., 15., 16., 17.,\n       18., 19.], dtype=float32)',
     '[ 0.  1.  2.  3.  4.  5.  6.  7.  8.\n  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19.]'),
    ({'linewidth': 40}, 'jnp.asarray(np.arange(8.0))',
     'Array([0., 1., 2., 3., 4., 5., 6., 7.],      dtype=float32)',
     '[0. 1. 2. 3. 4. 5. 6. 7.]'),
    ({'linewidth': 40}, 'jnp.asarray(np.arange(9.0))',
     'Array([0., 1., 2., 3., 4., 5., 6., 7.,\n       8.], dtype=float32)',
     '[0. 1. 2. 3. 4. 5. 6. 7. 8.]'),
    ({'linewidth': 40}, 'jnp.asarray(np.arange(6).reshape(2, 3))',
     'Array([[0, 1, 2],\n       [3, 4, 5]], dtype=int32)',
     '[[0 1 2]\n [3 4 5]]'),
    ({'threshold': 5, 'edgeitems': 2}, 'jnp.asarray(np.arange(10.0))',
     'Array([0., 1., ..., 8., 9.], dtype=float32)',
     '[0. 1. ... 8. 9.]'),
    ({'threshold': 5, 'edgeitems': 2}, 'jnp.asarray(np.arange(36).reshape(6, 6))',
     'Array([[ 0,  1, ...,  4,  5],\n       [ 6,  7, ..., 10, 11],\n       ...,\n       [24, 25, ..., 28, 29],\n       [30, 31, ..., 34, 35]], dtype=int32)',
     '[[ 0  1 ...  4  5]\n [ 6  7 ... 10 11]\n ...\n [24 25 ... 28 29]\n [30 31 ... 34 35]]'),
]


def _eval(expr):
    return eval(expr, {"jnp": jnp, "np": np})


@pytest.mark.parametrize("expr,expected_repr,expected_str", REPR_CASES,
                         ids=[c[0] for c in REPR_CASES])
def test_repr_and_str(expr, expected_repr, expected_str):
    x = _eval(expr)
    assert repr(x) == expected_repr
    assert str(x) == expected_str


@pytest.mark.parametrize("options,expr,expected_repr,expected_str", PRINTOPTIONS_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in PRINTOPTIONS_CASES])
def test_repr_follows_numpy_printoptions(options, expr, expected_repr, expected_str):
    x = _eval(expr)
    with np.printoptions(**options):
        assert repr(x) == expected_repr
        assert str(x) == expected_str


def test_dtype_goes_after_padding_when_the_last_line_is_full():
    # expected values from JAX 0.10.2: JAX pads with len("Array(") spaces, it
    # does not start a new line
    x = jnp.asarray(np.arange(12.0))
    assert repr(x).endswith("11.],      dtype=float32)")
    assert "\n" not in repr(x)


# --------------------------------------------------------------------------
# format()
# --------------------------------------------------------------------------
@pytest.mark.parametrize("value,spec,expected", [
    # expected values from JAX 0.10.2
    (2.5, ".2f", "2.50"),
    (2.5, "", "2.5"),
    (2.5, ">8.3f", "   2.500"),
    (2, "03d", "002"),
])
def test_format_of_zero_d_arrays(value, spec, expected):
    assert format(jnp.asarray(value), spec) == expected


def test_format_of_arrays():
    # expected values from JAX 0.10.2
    x = jnp.arange(3.0)
    assert format(x, "") == "[0. 1. 2.]"
    assert f"{x}" == "[0. 1. 2.]"
    with pytest.raises(TypeError, match="unsupported format string passed to "
                                        "numpy.ndarray.__format__"):
        format(x, ".2f")


# --------------------------------------------------------------------------
# Python scalars out of arrays
# --------------------------------------------------------------------------
def test_item_and_tolist():
    # expected values from JAX 0.10.2
    assert jnp.asarray(3.5).item() == 3.5 and type(jnp.asarray(3.5).item()) is float
    assert jnp.asarray(3).item() == 3 and type(jnp.asarray(3).item()) is int
    assert jnp.asarray(True).item() is True
    m = jnp.asarray(np.arange(6).reshape(2, 3))
    assert m.item(4) == 4 and m.item(1, 2) == 5
    with pytest.raises(ValueError, match="can only convert an array of size 1 to a "
                                         "Python scalar"):
        jnp.asarray(np.arange(6)).item()
    assert jnp.arange(3.0).tolist() == [0.0, 1.0, 2.0]
    assert m.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert jnp.asarray(2).tolist() == 2
    assert jnp.asarray(True).tolist() is True


@pytest.mark.parametrize("convert,value,expected", [
    # expected values from JAX 0.10.2
    (float, 2, 2.0), (float, 2.5, 2.5), (int, 3.7, 3), (int, -3.7, -3),
    (int, True, 1), (complex, 1.0, 1 + 0j), (complex, 1 + 2j, 1 + 2j),
    (bool, 2.0, True), (bool, 0, False), (bool, float("nan"), True),
])
def test_scalar_conversions(convert, value, expected):
    out = convert(jnp.asarray(value))
    assert type(out) is type(expected) and out == expected


@pytest.mark.parametrize("convert", [float, int, complex])
@pytest.mark.parametrize("shape", [(3,), (1,), (1, 1), (0,)])
def test_scalar_conversion_of_non_scalars_is_a_type_error(convert, shape):
    # expected values from JAX 0.10.2: even a size-1 array must be 0-d
    with pytest.raises(TypeError) as e:
        convert(jnp.ones(shape))
    assert str(e.value) == ("Only scalar arrays can be converted to Python scalars; "
                            f"got arr.ndim={len(shape)}")


def test_bool_of_arrays():
    # expected values from JAX 0.10.2
    assert bool(jnp.ones((1,))) is True
    assert bool(jnp.zeros((1, 1))) is False
    with pytest.raises(ValueError) as e:
        bool(jnp.arange(3))
    assert str(e.value) == ("The truth value of an array with more than one element "
                            "is ambiguous. Use a.any() or a.all()")
    with pytest.raises(ValueError) as e:
        bool(jnp.zeros((0,)))
    assert str(e.value) == ("The truth value of an empty array is ambiguous. Use "
                            "`array.size > 0` to check that an array is not empty.")


@pytest.mark.parametrize("convert,value,exc,msg", [
    # expected values from JAX 0.10.2 (Python's own messages)
    (float, 1 + 2j, TypeError, "float() argument must be a string or a real number, "
                               "not 'complex'"),
    (int, 1 + 2j, TypeError, "int() argument must be a string, a bytes-like object or a "
                             "real number, not 'complex'"),
    (int, float("nan"), ValueError, "cannot convert float NaN to integer"),
    (int, float("inf"), OverflowError, "cannot convert float infinity to integer"),
])
def test_scalar_conversion_errors(convert, value, exc, msg):
    with pytest.raises(exc) as e:
        convert(jnp.asarray(value))
    assert str(e.value) == msg


def test_index():
    # expected values from JAX 0.10.2
    assert operator.index(jnp.asarray(3)) == 3
    assert [1, 2, 3][jnp.asarray(1)] == 2
    assert operator.index(jnp.asarray(np.uint8(7))) == 7
    for bad in (jnp.asarray(3.0), jnp.arange(3), jnp.asarray(True)):
        with pytest.raises(TypeError) as e:
            operator.index(bad)
        assert str(e.value) == "Only integer scalar arrays can be converted to a scalar index."


# --------------------------------------------------------------------------
# Sequence protocol, immutability, hashing
# --------------------------------------------------------------------------
def test_len():
    # expected values from JAX 0.10.2
    assert len(jnp.zeros((4, 2))) == 4
    assert len(jnp.zeros((0, 2))) == 0
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(jnp.zeros(()))


def test_iteration():
    # expected values from JAX 0.10.2
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(jnp.zeros(()))
    rows = list(jnp.arange(3))
    assert [repr(r) for r in rows] == ["Array(0, dtype=int32)", "Array(1, dtype=int32)",
                                       "Array(2, dtype=int32)"]
    rows = list(jnp.asarray(np.arange(4.0).reshape(2, 2)))
    assert [repr(r) for r in rows] == ["Array([0., 1.], dtype=float32)",
                                       "Array([2., 3.], dtype=float32)"]


_SETITEM_MESSAGE = (
    "JAX arrays are immutable and do not support in-place item assignment. Instead of "
    "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


def test_setitem_is_a_type_error():
    # expected values from JAX 0.10.2
    x = jnp.arange(3.0)
    with pytest.raises(TypeError) as e:
        x[0] = 1
    assert str(e.value) == _SETITEM_MESSAGE
    s = jnp.zeros(())
    with pytest.raises(TypeError) as e:
        s[()] = 2
    assert str(e.value) == _SETITEM_MESSAGE
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0])


def test_augmented_item_assignment_is_a_type_error():
    # expected values from JAX 0.10.2: x[0] += 1 reads x[0], then fails to store
    x = jnp.arange(3.0)
    with pytest.raises(TypeError) as e:
        x[0] += 1
    assert str(e.value) == _SETITEM_MESSAGE


def test_metadata_is_read_only():
    # expected values from JAX 0.10.2: AttributeError ("... has no setter")
    x = jnp.arange(3.0)
    with pytest.raises(AttributeError, match="has no setter"):
        x.shape = (3, 1)
    with pytest.raises(AttributeError, match="has no setter"):
        x.dtype = np.int32


@pytest.mark.parametrize("x", [jnp.arange(3), jnp.asarray(1)])
def test_arrays_are_unhashable(x):
    # expected values from JAX 0.10.2: "unhashable type: 'jaxlib._jax.ArrayImpl'"
    with pytest.raises(TypeError, match="unhashable type"):
        hash(x)


# --------------------------------------------------------------------------
# Metadata, devices, readiness
# --------------------------------------------------------------------------
def test_metadata():
    # expected values from JAX 0.10.2
    x = jnp.zeros((2, 3), "int8")
    assert (x.shape, x.ndim, x.size, x.nbytes, x.itemsize) == ((2, 3), 2, 6, 6, 1)
    assert x.dtype == np.int8 and x.weak_type is False
    h = jnp.zeros((2, 3), "float16")
    assert (h.nbytes, h.itemsize) == (12, 2)
    assert jnp.zeros((2, 3)).weak_type is False
    assert jnp.asarray(2.0).weak_type is True
    assert isinstance(x.shape, tuple) and type(x.size) is int and type(x.nbytes) is int


def test_aval():
    # expected values from JAX 0.10.2
    assert repr(jnp.asarray(2.0).aval) == "ShapedArray(float32[], weak_type=True)"
    assert repr(jnp.zeros((2, 3), "int8").aval) == "ShapedArray(int8[2,3])"
    assert jnp.zeros((2, 3), "int8").aval.str_short() == "int8[2,3]"
    assert jnp.zeros((2, 3), "int8").aval.str_short(short_dtypes=True) == "i8[2,3]"
    assert jnp.zeros((2,), "bool").aval.str_short(short_dtypes=True) == "bool[2]"
    assert jnp.zeros(2).aval == minijax.ShapedArray((2,), np.float32)
    assert jnp.asarray(2.0).aval != minijax.ShapedArray((), np.float32)
    assert jnp.asarray(2.0).aval.strip_weak_type() == minijax.ShapedArray((), np.float32)


def test_devices():
    # expected values from JAX 0.10.2
    x = jnp.arange(3.0)
    assert repr(x.device) == "CpuDevice(id=0)"
    assert repr(x.devices()) == "{CpuDevice(id=0)}"
    assert x.device.platform == "cpu" and x.device.id == 0
    assert x.device.device_kind == "cpu"
    assert x.devices() == {x.device}


def test_device_str():
    # expected values from JAX 0.10.2
    assert str(jnp.arange(3.0).device) == "cpu:0"


def test_readiness():
    # expected values from JAX 0.10.2
    x = jnp.arange(3.0)
    assert x.block_until_ready() is x
    assert x.is_ready() is True
    assert x.copy_to_host_async() is None
    assert x.is_fully_addressable is True and x.committed is False
    assert x.on_device_size_in_bytes() == 12


def test_delete():
    # expected values from JAX 0.10.2
    x = jnp.arange(3.0)
    assert x.is_deleted() is False
    assert x.delete() is None
    assert x.is_deleted() is True
    assert x.shape == (3,)  # metadata survives
    for use in (repr, np.asarray, lambda a: a.devices(), lambda a: a.tobytes()):
        with pytest.raises(RuntimeError) as e:
            use(x)
        assert str(e.value) == "Array has been deleted with shape=float32[3]."
    x.delete()  # deleting twice is fine


def test_tobytes():
    # expected values from JAX 0.10.2
    assert jnp.asarray(2.5).tobytes() == b"\x00\x00 @"
    assert jnp.arange(3).tobytes() == b"\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00"


# --------------------------------------------------------------------------
# NumPy conversion and interop
# --------------------------------------------------------------------------
def test_np_asarray():
    # expected values from JAX 0.10.2
    x = jnp.arange(3.0)
    a = np.asarray(x)
    assert type(a) is np.ndarray and a.dtype == np.float32
    assert a.flags.writeable is False  # a view of the immutable buffer
    assert np.array(x).flags.writeable is True  # np.array copies
    b = np.asarray(x, dtype=np.float64)
    assert b.dtype == np.float64 and b.tolist() == [0.0, 1.0, 2.0]
    assert np.asarray(jnp.asarray(2.0)).shape == ()
    assert np.asarray(jnp.asarray(True)).dtype == np.bool_


def test_array_priority():
    # expected values from JAX 0.10.2
    assert jnp.ones(3).__array_priority__ == 100


@pytest.mark.parametrize("fn,expected", [
    # expected values from JAX 0.10.2: NumPy defers to the minijax Array
    (lambda: np.float64(2) * jnp.ones(3), "Array([2., 2., 2.], dtype=float32)"),
    (lambda: jnp.ones(3) * np.float64(2), "Array([2., 2., 2.], dtype=float32)"),
    (lambda: np.float32(2) * jnp.ones(3, "float16"), "Array([2., 2., 2.], dtype=float32)"),
    (lambda: np.ones(3) + jnp.ones(3), "Array([2., 2., 2.], dtype=float32)"),
    (lambda: jnp.ones(3) + np.ones(3), "Array([2., 2., 2.], dtype=float32)"),
    (lambda: np.ones(3, "int8") + jnp.ones(3, "int16"), "Array([2, 2, 2], dtype=int16)"),
    (lambda: np.int8(3) + jnp.ones(3, "int16"), "Array([4, 4, 4], dtype=int16)"),
    (lambda: np.int8(3) + jnp.asarray(3), "Array(6, dtype=int8)"),
    (lambda: np.ones(3) < jnp.ones(3), "Array([False, False, False], dtype=bool)"),
])
def test_numpy_operands_give_minijax_arrays(fn, expected):
    out = fn()
    assert isinstance(out, minijax.Array)
    assert repr(out) == expected


def test_numpy_ufuncs_give_numpy_arrays():
    # expected values from JAX 0.10.2: np.sin(jax_array) is a NumPy array
    out = np.sin(jnp.ones(3))
    assert type(out) is np.ndarray and out.dtype == np.float32
    out = np.add(jnp.ones(3), 1)
    assert type(out) is np.ndarray and out.dtype == np.float32
    np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])


def test_round():
    # expected values from JAX 0.10.2: round() of a 0-d array is an Array
    assert repr(round(jnp.asarray(2.5))) == "Array(2, dtype=int32)"
    assert repr(round(jnp.asarray(2.567), 2)) == "Array(2.57, dtype=float32, weak_type=True)"


# --------------------------------------------------------------------------
# Copying and pickling
# --------------------------------------------------------------------------
@pytest.mark.parametrize("x", [jnp.arange(3.0), jnp.asarray(2.0),
                               jnp.asarray(np.arange(6, dtype=np.int8).reshape(2, 3))])
def test_pickle_round_trip(x):
    # expected values from JAX 0.10.2: pickling keeps dtype and weak type
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, minijax.Array)
    assert repr(y) == repr(x)
    assert (y.dtype, y.weak_type, y.shape) == (x.dtype, x.weak_type, x.shape)


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
def test_copy(copier):
    # expected values from JAX 0.10.2: a new Array object with the same contents
    x = jnp.asarray(2.0)
    y = copier(x)
    assert y is not x and isinstance(y, minijax.Array)
    assert repr(y) == "Array(2., dtype=float32, weak_type=True)"
    z = copier(jnp.arange(3.0))
    assert repr(z) == "Array([0., 1., 2.], dtype=float32)"


def test_array_type():
    # expected values from JAX 0.10.2: jnp.ndarray is the Array class
    assert isinstance(jnp.zeros(2), minijax.Array)
    assert jnp.ndarray is minijax.Array
