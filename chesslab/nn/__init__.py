"""chesslab.nn: neural networks from scratch in numpy.

Layers with forward/backward, losses returning (loss, grad), SGD and Adam, the thesis's
ANN and CNN, the tutorial's conv and residual nets, JSON model files, gradient checks.
"""
from chesslab.nn.conv import Conv2D, MaxPool2D, conv2d_naive
from chesslab.nn.gradcheck import check_layer, check_loss, numerical_gradient, relative_error
from chesslab.nn.io import FORMAT_VERSION, load_model, model_from_doc, save_model
from chesslab.nn.layers import (DTYPE, ClippedReLU, Dense, Flatten, Layer, ReLU, Sequential, Sigmoid, Tanh,
                     he_normal, xavier_uniform)
from chesslab.nn.losses import (binary_cross_entropy, l2_penalty, mse, sigmoid, sigmoid_mse, softmax,
                     softmax_cross_entropy)
from chesslab.nn.models import (ANN, CNN, Network, conv_net, layer_from_config, linear_pst_net, nnue_net,
                     residual_net, thesis_ann, thesis_cnn, train_step)
from chesslab.nn.nnue_layers import FeatureTransformer, NNUEHead
from chesslab.nn.optim import SGD, Adam
from chesslab.nn.residual import BatchNorm, Residual, recalibrate_batch_norm

__all__ = [
    "Layer", "Dense", "Conv2D", "MaxPool2D", "ReLU", "Sigmoid", "Tanh", "Flatten", "BatchNorm",
    "recalibrate_batch_norm",
    "Residual", "Sequential", "ClippedReLU", "FeatureTransformer", "NNUEHead", "sigmoid", "sigmoid_mse", "conv2d_naive", "he_normal", "xavier_uniform", "layer_from_config",
    "DTYPE", "mse", "binary_cross_entropy", "softmax", "softmax_cross_entropy", "l2_penalty",
    "SGD", "Adam", "Network", "ANN", "CNN", "thesis_ann", "thesis_cnn", "conv_net",
    "residual_net", "nnue_net", "linear_pst_net", "train_step", "save_model", "load_model", "model_from_doc",
    "FORMAT_VERSION",
    "numerical_gradient", "relative_error", "check_layer", "check_loss",
]
